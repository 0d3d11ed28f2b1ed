import { describe, expect, it } from "vitest";
import { emailOtp, hashSecret } from "@latchkey/core";
import {
  describeViolations,
  exploreInterleavings,
  noSessionFromReplacedPassword,
  spentTokenHadEffect,
  structuralViolations,
  takeSnapshot,
} from "@latchkey/test-support";
import {
  answer,
  budget,
  freshEmail,
  report,
  seamAuth,
  seamHasher,
  storeVariants,
  tokenOf,
  type Answer,
} from "../../test/seams/harness.ts";

const OLD = "correct horse battery";
const NEW = "a brand new password";

// Sign-in with the old password x password reset: after every interleaving, no session obtained with the old
// password survives the reset (I4), a spent reset token means the password changed and the other sessions are
// gone (I5), and the structural invariants hold.
describe.each(storeVariants())("sign-in x password reset, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  const pair = async (kind: "link" | "otp") =>
    exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const t = seamAuth(around(wrap(store)), { plugins: [emailOtp()] });
        const email = freshEmail();
        const { token: other, userId } = await t.signUp(email, OLD);
        const path = kind === "link" ? "/request-password-reset" : "/email-otp/request-password-reset";
        expect((await t.request("POST", path, { body: { email } })).status).toBe(200);
        const secret = t.auth.getOtp(email);
        if (!secret) throw new Error("no reset secret captured");
        return { t, email, other, userId, secret, identifier: `otp:password-reset:${email}` };
      },
      flows: ({ t, email, secret }) => ({
        signIn: () => answer(t.request("POST", "/sign-in/email", { body: { email, password: OLD } })),
        reset: () =>
          answer(
            kind === "link"
              ? t.request("POST", "/reset-password", { body: { token: secret, newPassword: NEW } })
              : t.request("POST", "/email-otp/reset-password", { body: { email, otp: secret, password: NEW } }),
          ),
      }),
      async check({ t, email, other, userId, identifier, secret }, run) {
        const signIn = run.results.signIn!.ok ? (run.results.signIn!.value as Answer) : undefined;
        const reset = run.results.reset!.ok ? (run.results.reset!.value as Answer) : undefined;
        expect(reset?.status, JSON.stringify(reset?.body)).toBe(200);
        expect([200, 401], JSON.stringify(signIn?.body)).toContain(signIn?.status);
        const late = tokenOf(signIn);
        const snap = await takeSnapshot(t.store, {
          userIds: [userId],
          emails: [email],
          sessionTokens: late ? [other, late] : [other],
          identifiers: [identifier],
        });
        const spentRow =
          kind === "link"
            ? await t.store.verifications.findByValueHash(hashSecret(secret))
            : snap.verifications.get(identifier);
        const passwordSessions = [{ token: other, password: OLD }, ...(late ? [{ token: late, password: OLD }] : [])];
        const violations = [
          ...structuralViolations(snap),
          ...(await noSessionFromReplacedPassword(snap, passwordSessions, seamHasher)),
          ...spentTokenHadEffect(`${kind} reset token`, spentRow, () =>
            // The reset answered 200: its effect must be whole.
            snap.sessions.get(other) ? { partial: "the sessions from before the reset are alive" } : "complete",
          ),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
        const after = await t.request("POST", "/sign-in/email", { body: { email, password: NEW } });
        expect(after.status).toBe(200);
      },
    });

  it("by link: no old-password session survives, the spent link means the reset happened", async () => {
    report(`sign-in x reset (link)${name}`, await pair("link"));
  });

  it("by OTP: no old-password session survives, the spent code means the reset happened", async () => {
    report(`sign-in x reset (OTP)${name}`, await pair("otp"));
  });
});
