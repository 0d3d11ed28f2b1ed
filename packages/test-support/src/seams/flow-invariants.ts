import { hashSecret } from "@latchkey/core";
import type { PasswordHasher, VerificationRecord } from "@latchkey/core";
import type { Snapshot } from "./snapshot.ts";
import type { Violation } from "./invariants.ts";

// The invariants a flow checks with what only it knows (the passwords it replaced, the tokens it was answered, the
// counts it granted), beside the snapshot; invariants.ts has the ones the snapshot alone decides.

const v = (invariant: number, detail: string): Violation => ({ invariant, detail });

/** A session a flow obtained by proving a password. */
export interface PasswordSession {
  token: string;
  password: string;
}

/**
 * I4. No live session created from a password that was replaced before the session was created. Applies where the
 * replacement revokes the other sessions (reset by link or code, change-password with revocation, set-password
 * after a mailbox proof): any such session still alive whose password is no longer the user's was created after
 * the replacement.
 */
export async function noSessionFromReplacedPassword(
  s: Snapshot,
  sessions: readonly PasswordSession[],
  hasher: PasswordHasher,
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const { token, password } of sessions) {
    const found = s.sessions.get(token);
    if (!found) continue;
    const credential = (s.accounts.get(found.session.userId) ?? []).find((a) => a.passwordHash);
    if (!credential?.passwordHash || !(await hasher.verify(credential.passwordHash, password)))
      out.push(v(4, `a session signed in with a replaced password is alive (user ${found.session.userId})`));
  }
  return out;
}

/** How much of a one-time token's effect is in the store: all of it, none of it, or a description of a part. */
export type EffectState = "complete" | "none" | { partial: string };

/**
 * I5. A spent one-time token means its effect happened, or the flow can be redone: spent with the whole effect,
 * or spent with none of it (the user asks for a new token), never spent with a part of it (a password written
 * while the other sessions live on, with no token left to finish the job). `row` is the token's row as it is now
 * (null: spent or gone).
 */
export function spentTokenHadEffect(
  what: string,
  row: VerificationRecord | null | undefined,
  effect: () => EffectState,
): Violation[] {
  if (row) return [];
  const state = effect();
  return typeof state === "object"
    ? [v(5, `${what} is spent but only part of its effect happened: ${state.partial}`)]
    : [];
}

/** I6. At most `maxFailures` password checks per lockout window per account (plus the documented margin). */
export function lockoutBound(passwordChecks: number, maxFailures: number, margin = 0): Violation[] {
  return passwordChecks > maxFailures + margin
    ? [v(6, `${passwordChecks} password checks with maxFailures ${maxFailures} (margin ${margin})`)]
    : [];
}

/** How a key was refused: `disabled`, `deleted`, or `replaced` (its value was rerolled away without a grace). */
export type Refusal = "disabled" | "deleted" | "replaced";

/** I8. A refused API key never verifies: its stored state refuses it (the HTTP check is the test's). */
export function refusedKeyStaysRefused(s: Snapshot, value: string, refusal: Refusal): Violation[] {
  const key = s.apiKeysByValue.get(value);
  if (refusal === "disabled" && key?.enabled) return [v(8, `a disabled key is enabled again (${key.id})`)];
  if (refusal === "deleted" && key) return [v(8, `a deleted key is back (${key.id})`)];
  if (refusal === "replaced" && key && (key.keyHash === hashSecret(value) || key.previousKeyExpiresAt !== null))
    return [v(8, `a replaced key value still matches key ${key.id}`)];
  return [];
}

/**
 * I9. No request's rollback removes another request's writes: every session a request was answered (and that no
 * later request revoked) is still there.
 */
export function answeredSessionsExist(s: Snapshot, tokens: readonly string[]): Violation[] {
  return tokens.filter((t) => !s.sessions.get(t)).map((t) => v(9, `an answered session ${t.slice(0, 6)}… is gone`));
}

/** I10. A quota is never overdrawn: the uses granted plus what remains equal what there was. */
export function quotaConserved(s: Snapshot, keyId: string, initial: number, granted: number): Violation[] {
  const key = s.apiKeys.get(keyId);
  if (!key) return [v(10, `key ${keyId} vanished`)];
  if (key.remaining === null || key.remaining < 0) return [v(10, `remaining is ${key.remaining}`)];
  return key.remaining + granted === initial
    ? []
    : [v(10, `${granted} uses granted, ${key.remaining} remain, of ${initial}`)];
}

/** I11. A live one-time code has fewer failed attempts than the limit (at the limit it is destroyed). */
export function codesUnderAttemptLimit(s: Snapshot, maxAttempts: number): Violation[] {
  const out: Violation[] = [];
  for (const [identifier, row] of s.verifications)
    if (row && row.attemptCount >= maxAttempts)
      out.push(v(11, `${identifier} has ${row.attemptCount} failed attempts`));
  return out;
}

/** What I12 asks of the auth under test: `auth.core.ctx.devices.recognise`. */
export type RecogniseDevice = (token: string, userId: string, passwordHash: string | null) => Promise<unknown>;

/**
 * I12. No device cookie outlives its account's password change: none of `tokens` (each issued while the account had
 * a password that has been replaced since) is a known device of the account now, whatever the interleaving.
 */
export async function noDeviceOutlivesPasswordChange(
  s: Snapshot,
  userId: string,
  tokens: readonly string[],
  recognise: RecogniseDevice,
): Promise<Violation[]> {
  const current = (s.accounts.get(userId) ?? []).find((a) => a.providerId === "credential")?.passwordHash ?? null;
  const out: Violation[] = [];
  for (const token of tokens)
    if ((await recognise(token, userId, current)) !== null)
      out.push(v(12, `a device token ${token.slice(0, 6)}… issued before the password change still verifies`));
  return out;
}
