// The race tests' shared helpers: a hasher that holds a password check open, and the reset and sign-in requests.
import { argon2idHasher, webCryptoRandom, type PasswordHasher } from "@latchkey/core";
import type { TestAuth } from "../../../test/test-auth.ts";

// Review fixes 30.12 (a failed reset left the attacker signed in), 30.13 (a sign-in overlapping a reset survived
// it) and 30.22 (a sign-in racing account deletion answered 500 or a dead token; a deleted owner's key verified).

export const PASSWORD = "correct horse battery";
export const NEW_PASSWORD = "a brand new passphrase";
const flush = () => new Promise((r) => setTimeout(r, 0));
let ipSeq = 0;
export const ip = () => `198.19.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

/** A hasher whose next `verify` waits until `release()`: the window in which another request runs. */
export function gatedHasher(): PasswordHasher & { arm(): Promise<void>; release(): void } {
  const inner = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });
  let armed = false;
  let entered: () => void = () => undefined;
  let open: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  return {
    hash: (password) => inner.hash(password),
    async verify(hash, password) {
      const result = await inner.verify(hash, password);
      if (armed) {
        armed = false;
        entered();
        await gate;
      }
      return result;
    },
    arm() {
      armed = true;
      gate = new Promise((r) => {
        open = r;
      });
      return new Promise((r) => {
        entered = r;
      });
    },
    release: () => open(),
  };
}

export const signIn = (t: TestAuth, password: string) =>
  t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password }, ip: ip() });

export async function resetToken(t: TestAuth): Promise<string> {
  await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" }, ip: ip() });
  await flush();
  return t.auth.getOtp("ada@example.com")!;
}

export const reset = (t: TestAuth, token: string) =>
  t.request("POST", "/reset-password", { body: { token, newPassword: NEW_PASSWORD }, ip: ip() });

/** Counts (and removes) the user's sessions: the store has no listing. */
export const sessionsLeft = (t: TestAuth, userId: string) => t.store.sessions.deleteByUser(userId);
