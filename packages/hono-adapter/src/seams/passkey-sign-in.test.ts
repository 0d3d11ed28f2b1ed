import { describe, expect, it } from "vitest";
import { exploreInterleavings } from "@latchkey/test-support";
import {
  answer,
  answerOf,
  outcomes,
  PASSWORD,
  report,
  storeVariants,
  structural,
  tokenOf,
} from "../../test/seams/harness.ts";
import { bearer } from "../../test/test-auth.ts";
import {
  PAIR_TIMEOUT_MS,
  passkeyAuth,
  passkeyBudget,
  passwordUserWithPasskey,
  pendingSignIn,
  statusOf,
} from "../../test/seams/passkey-fixture.ts";

// A passkey sign-in racing the account's other flows (issue 44): x the account's deletion and x a password reset.
// After each interleaving: the structural invariants, among them I2 (no passkey or session of a deleted user).

describe.each(storeVariants())("passkeys at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it(
    "passkey sign-in x account deletion: no session or passkey of the deleted user, the sign-in before it or refused",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...passkeyBudget(),
        async setup(wrap) {
          const t = passkeyAuth(around(wrap(store)));
          const u = await passwordUserWithPasskey(t);
          return { t, ...u, pending: await pendingSignIn(t, u.device) };
        },
        flows: ({ t, token, pending }) => ({
          signIn: () => answer(t.request("POST", "/passkey/authenticate/verify", { body: pending })),
          delete: () =>
            answer(t.request("POST", "/delete-account", { body: { password: PASSWORD }, headers: bearer(token) })),
        }),
        async check({ t, email, token, userId, passkey }, run) {
          expect(statusOf(run, "delete"), JSON.stringify(answerOf(run, "delete").body)).toBe(200);
          const signIn = answerOf(run, "signIn");
          expect([200, 401], JSON.stringify(signIn.body)).toContain(signIn.status);
          seen.add(signIn.status === 200 ? "signed in, then deleted" : "refused");
          const late = tokenOf(signIn);
          const snap = await structural(t, {
            userIds: [userId],
            emails: [email],
            sessionTokens: late ? [token, late] : [token],
            passkeyCredentials: [passkey.credentialId],
          });
          expect(snap.users.get(userId)).toBeNull();
          if (late) expect(snap.sessions.get(late)).toBeNull();
          if (snap.sessionCounts.size > 0) expect(snap.sessionCounts.get(userId)).toBe(0);
        },
      });
      seen.expect("signed in, then deleted", "refused");
      report(`passkey sign-in x account deletion${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "passkey sign-in x password reset: the reset keeps the passkey, the sign-in succeeds, its session outlives the reset only when made after it",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...passkeyBudget(),
        async setup(wrap) {
          const t = passkeyAuth(around(wrap(store)));
          const u = await passwordUserWithPasskey(t);
          expect((await t.request("POST", "/request-password-reset", { body: { email: u.email } })).status).toBe(200);
          const secret = t.auth.getOtp(u.email);
          if (!secret) throw new Error("no reset secret captured");
          return { t, ...u, secret, pending: await pendingSignIn(t, u.device) };
        },
        flows: ({ t, secret, pending }) => ({
          signIn: () => answer(t.request("POST", "/passkey/authenticate/verify", { body: pending })),
          reset: () =>
            answer(t.request("POST", "/reset-password", { body: { token: secret, newPassword: "a new password 2" } })),
        }),
        async check({ t, email, token, userId, passkey, device }, run) {
          expect(statusOf(run, "reset"), JSON.stringify(answerOf(run, "reset").body)).toBe(200);
          const signIn = answerOf(run, "signIn");
          expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
          const late = tokenOf(signIn)!;
          const snap = await structural(t, {
            userIds: [userId],
            emails: [email],
            sessionTokens: [token, late],
            passkeyCredentials: [passkey.credentialId],
          });
          // The reset revokes every session it finds (the one from before it, always) and keeps the passkey.
          expect(snap.sessions.get(token)).toBeNull();
          expect(snap.byCredential.get(passkey.credentialId)?.userId).toBe(userId);
          seen.add(snap.sessions.get(late) ? "signed in after the reset" : "signed in before, revoked by the reset");
          // The passkey still signs in after both.
          const again = await pendingSignIn(t, device);
          expect((await t.request("POST", "/passkey/authenticate/verify", { body: again })).status).toBe(200);
        },
      });
      seen.expect("signed in after the reset", "signed in before, revoked by the reset");
      report(`passkey sign-in x password reset${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );
});
