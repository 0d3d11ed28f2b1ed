import { base32Decode, totp } from "@latchkey/core/internal";
import { equal, ok } from "../harness/assert.ts";
import { expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { E2E_PASSWORD, signUpWithPassword } from "../harness/sign-up.ts";

interface Challenge {
  twoFactorRequired?: boolean;
  twoFactorToken?: string;
  user?: unknown;
}

/**
 * Two-factor: switched on with a code computed here from the key (as an authenticator app does), a password sign-in
 * that stops before its session, a code outside the window refused, the next step's code finishing it once.
 */
export const twoFactorJourney: Journey = {
  name: "two-factor second sign-in step (twoFactor plugin)",
  requiresPaths: ["/two-factor/enable", "/two-factor/verify"],
  async run(context) {
    const { client, target } = context;
    const user = await signUpWithPassword(context, "tf");
    const setup = expectStatus(
      await client.call("POST", "/two-factor/enable", { bearer: user.token, body: {} }),
      200,
      "two-factor/enable",
    ) as { secret: string; recoveryCodes: string[] };
    const key = base32Decode(setup.secret);
    ok(key !== null && key.length === 20, "the key is 20 bytes of base32");
    const code = (aheadMs: number) => totp(key!, Date.now() + aheadMs, { digits: 6, period: 30, algorithm: "SHA1" });
    expectStatus(
      await client.call("POST", "/two-factor/verify-setup", { bearer: user.token, body: { code: code(0) } }),
      200,
      "two-factor/verify-setup",
    );

    const body = { email: user.email, password: E2E_PASSWORD };
    const first = expectStatus(await client.call("POST", "/sign-in/email", { body }), 200, "sign-in") as Challenge;
    equal(first.twoFactorRequired, true, "the sign-in asks for the second step");
    equal(first.user, undefined, "no user in the answer before the second step");
    const twoFactorToken = first.twoFactorToken;
    ok(typeof twoFactorToken === "string" && twoFactorToken.length >= 40, "a pending sign-in token");

    const old = await client.call("POST", "/two-factor/verify", { body: { code: code(-60_000), twoFactorToken } });
    expectError(old, 400, "INVALID_TWO_FACTOR_CODE", "a code two steps old");
    // The next step's code (the one that enabled two-factor is spent; window 1 accepts the next).
    const done = expectStatus(
      await client.call("POST", "/two-factor/verify", { body: { code: code(30_000), twoFactorToken } }),
      200,
      "two-factor/verify",
    ) as { user: { id: string }; credentials: { token: string } };
    equal(done.user.id, user.userId, "the second step signs the user in");
    const session = expectStatus(
      await client.call("GET", "/get-session", { bearer: done.credentials.token }),
      200,
      "get-session",
    ) as { user: { id: string } } | null;
    equal(session?.user.id, user.userId, "the session of the second step is live");
    const replay = await client.call("POST", "/two-factor/verify", { body: { code: code(30_000), twoFactorToken } });
    expectError(replay, 401, "INVALID_TWO_FACTOR_SIGN_IN", "a finished pending sign-in");
    if (target.store?.twoFactor) {
      const record = await target.store.twoFactor.find(user.userId);
      equal(record?.enabled, true, "the store holds two-factor on");
      ok(record !== null && !record.secret.includes(setup.secret), "the key is stored sealed");
    }
  },
};
