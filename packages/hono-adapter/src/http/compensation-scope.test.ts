import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailOtp, type FullStore } from "@latchkey/core";
import { drizzleStore, type D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
import { migratedD1 } from "../../test/d1-binding.ts";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";

// Review fix 20: the stores without interactive transactions (D1, a standalone MongoDB) roll a failed flow back
// by compensation, which deleted a created user with everything hanging off it, including what a concurrent
// request had attached to that user. This suite drives the real D1 store (a Miniflare D1 binding, from Node); it
// pins that store, so it runs once, in the memory project.

let d1: Awaited<ReturnType<typeof migratedD1>> | undefined;
let binding: D1DatabaseBinding;
beforeAll(async () => {
  d1 = await migratedD1("compensation-scope");
  binding = d1.binding;
});
afterAll(async () => {
  await d1?.dispose();
});

/** The D1 store whose first in-transaction `sessions.create` waits for `release` and then fails. */
function gatedD1() {
  const inner = drizzleStore({ binding });
  let reached!: () => void;
  let release!: () => void;
  const atGate = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let armed = true;
  const store: FullStore = {
    ...inner,
    transaction: (body) =>
      inner.transaction((tx) =>
        body({
          ...tx,
          sessions: {
            ...tx.sessions,
            async create(session) {
              if (!armed) return tx.sessions.create(session);
              armed = false;
              reached();
              await gate;
              throw new Error("injected failure at the sign-up's session insert");
            },
          },
        }),
      ),
  };
  return { store, atGate, release };
}

describe.skipIf(testStoreKind() !== "memory")("compensation (D1) undoes only the failed flow's own writes", () => {
  it("a failed sign-up's rollback does not delete the session an OTP sign-in attached to the new user meanwhile", async () => {
    const gated = gatedD1();
    const t = createTestAuth({ store: gated.store, plugins: [emailOtp()] });
    const email = "carol@example.com";
    const signUp = t.request("POST", "/sign-up/email", { body: { email, password: "carol password 1" } });
    await gated.atGate;

    // The user row exists (the sign-up has not failed yet): carol signs in with a code meanwhile.
    expect(
      (await t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } })).status,
    ).toBe(200);
    const otpSignIn = await t.request("POST", "/sign-in/email-otp", { body: { email, otp: t.auth.getOtp(email) } });
    expect(otpSignIn.status).toBe(200);
    const { credentials, user } = (await otpSignIn.json()) as { credentials: { token: string }; user: { id: string } };

    gated.release();
    expect((await signUp).status).toBe(500);

    // The OTP sign-in's session, and the user it belongs to, survive the sign-up's rollback.
    const session = await t.request("GET", "/get-session", { headers: bearer(credentials.token) });
    expect(((await session.json()) as { user: { id: string } } | null)?.user.id).toBe(user.id);
    expect(await t.store.users.findByEmail(email)).not.toBeNull();
    expect((await t.store.accounts.listByUser(user.id)).map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
  });

  it("a failed sign-up with nothing attached meanwhile still leaves no user, and a retry succeeds", async () => {
    const gated = gatedD1();
    const t = createTestAuth({ store: gated.store });
    const email = "dave@example.com";
    const signUp = t.request("POST", "/sign-up/email", { body: { email, password: "dave password 1" } });
    await gated.atGate;
    gated.release();
    expect((await signUp).status).toBe(500);
    expect(await t.store.users.findByEmail(email)).toBeNull();
    expect((await t.request("POST", "/sign-up/email", { body: { email, password: "dave password 1" } })).status).toBe(
      200,
    );
  });
});
