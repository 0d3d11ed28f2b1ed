import { expect } from "vitest";
import { hashSecret } from "@latchkey/core";
import { noSessionFromReplacedPassword, spentTokenHadEffect } from "@latchkey/test-support";
import { answer, freshEmail, seamHasher, tokenOf } from "./harness.ts";
import { bearer } from "../test-auth.ts";
import { faultCaseList, NEW, OLD, type T } from "./fault-case-kit.ts";

const credentialHash = async (t: T, userId: string) =>
  (await t.store.accounts.listByUser(userId)).find((a) => a.passwordHash)?.passwordHash ?? null;
const hasPassword = async (t: T, userId: string, password: string) => {
  const hash = await credentialHash(t, userId);
  return hash !== null && (await seamHasher.verify(hash, password));
};
const alive = async (t: T, token: string) => (await t.store.sessions.findByTokenHash(hashSecret(token))) !== null;
const otpFor = async (t: T, email: string, purpose: string) => {
  expect((await t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose } })).status).toBe(200);
  return t.auth.getOtp(email)!;
};

const { cases, faultCase } = faultCaseList();

faultCase("sign-up", {
  prepare: async () => ({ email: freshEmail() }),
  request: (t, c) => answer(t.request("POST", "/sign-up/email", { body: { email: c.email, password: OLD } })),
  scope: (c, a) => ({ emails: [c.email], sessionTokens: tokenOf(a ?? undefined) ? [tokenOf(a ?? undefined)!] : [] }),
  async missing(t, c, a) {
    const user = await t.store.users.findByEmail(c.email);
    if (!user) return "no user";
    if (!(await hasPassword(t, user.id, OLD))) return "no password";
    const token = tokenOf(a ?? undefined);
    return token && !(await alive(t, token)) ? "the answered session is gone" : null;
  },
  async retry(t, c) {
    const again = await answer(t.request("POST", "/sign-up/email", { body: { email: c.email, password: OLD } }));
    if (again.status !== 200) {
      expect(again.status, JSON.stringify(again.body)).toBe(422);
      const signIn = await answer(t.request("POST", "/sign-in/email", { body: { email: c.email, password: OLD } }));
      expect(signIn.status).toBe(200);
    }
  },
});

faultCase("OTP sign-in of a new user", {
  prepare: async (t) => {
    const email = freshEmail("otp");
    return { email, code: await otpFor(t, email, "sign-in") };
  },
  request: (t, c) => answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: c.code } })),
  scope: (c, a) => ({ emails: [c.email], sessionTokens: tokenOf(a ?? undefined) ? [tokenOf(a ?? undefined)!] : [] }),
  async missing(t, c, a) {
    const user = await t.store.users.findByEmail(c.email);
    if (!user) return "no user";
    const token = tokenOf(a ?? undefined);
    return token && !(await alive(t, token)) ? "the answered session is gone" : null;
  },
  async retry(t, c) {
    let again = await answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: c.code } }));
    if (again.status !== 200) {
      // The code is spent: the flow can be redone with a new one.
      expect(again.body.code).toBe("INVALID_OTP");
      const code = await otpFor(t, c.email, "sign-in");
      again = await answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: code } }));
    }
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  },
});

for (const kind of ["link", "OTP"] as const) {
  faultCase(`password reset by ${kind}`, {
    async prepare(t) {
      const email = freshEmail();
      const { token: other, userId } = await t.signUp(email, OLD);
      const path = kind === "link" ? "/request-password-reset" : "/email-otp/request-password-reset";
      expect((await t.request("POST", path, { body: { email } })).status).toBe(200);
      return { email, other, userId, secret: t.auth.getOtp(email)! };
    },
    request: (t, c) =>
      answer(
        kind === "link"
          ? t.request("POST", "/reset-password", { body: { token: c.secret, newPassword: NEW } })
          : t.request("POST", "/email-otp/reset-password", {
              body: { email: c.email, otp: c.secret, password: NEW },
            }),
      ),
    scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.other], identifiers: [`otp:password-reset:${c.email}`] }),
    async missing(t, c) {
      if (!(await hasPassword(t, c.userId, NEW))) return "the password was not replaced";
      return (await alive(t, c.other)) ? "the other sessions are alive" : null;
    },
    async invariants(t, c, s) {
      const row =
        kind === "link"
          ? await t.store.verifications.findByValueHash(hashSecret(c.secret))
          : s.verifications.get(`otp:password-reset:${c.email}`);
      const replaced = await hasPassword(t, c.userId, NEW);
      const revoked = !(await alive(t, c.other));
      return [
        ...(await noSessionFromReplacedPassword(s, [{ token: c.other, password: OLD }], seamHasher)),
        // Sessions gone without the new password is safe and redoable (a new token finishes it); the new
        // password with the old sessions alive is the part that must never be left behind.
        ...spentTokenHadEffect(`the ${kind} reset token`, row, () =>
          replaced && revoked ? "complete" : replaced ? { partial: "the other sessions are alive" } : "none",
        ),
      ];
    },
    async retry(t, c) {
      const again = await this.request(t, c);
      if (again.status === 200 || (await this.missing(t, c, null)) === null) return;
      // The token is spent and nothing happened (I5): the user asks for a new one and resets.
      expect(again.body.code).toBe(kind === "link" ? "INVALID_TOKEN" : "INVALID_OTP");
      const path = kind === "link" ? "/request-password-reset" : "/email-otp/request-password-reset";
      expect((await t.request("POST", path, { body: { email: c.email } })).status).toBe(200);
      const redo = await this.request(t, { ...c, secret: t.auth.getOtp(c.email)! });
      expect(redo.status, JSON.stringify(redo.body)).toBe(200);
    },
  });
}

faultCase("set-password (after a mailbox proof)", {
  async prepare(t) {
    const email = freshEmail("otp");
    const first = await answer(
      t.request("POST", "/sign-in/email-otp", { body: { email, otp: await otpFor(t, email, "sign-in") } }),
    );
    const second = await answer(
      t.request("POST", "/sign-in/email-otp", { body: { email, otp: await otpFor(t, email, "sign-in") } }),
    );
    return { token: tokenOf(first)!, other: tokenOf(second)!, userId: (first.body.user as { id: string }).id };
  },
  request: (t, c) =>
    answer(t.request("POST", "/set-password", { headers: bearer(c.token), body: { newPassword: NEW } })),
  scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.token, c.other] }),
  async missing(t, c) {
    if (!(await hasPassword(t, c.userId, NEW))) return "no password";
    return (await alive(t, c.other)) ? "the other sessions are alive" : null;
  },
  async retry(t, c) {
    const again = await this.request(t, c);
    if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBeLessThan(500);
  },
});

faultCase("change-password with revocation", {
  async prepare(t) {
    const email = freshEmail();
    const { token, userId } = await t.signUp(email, OLD);
    const other = tokenOf(await answer(t.request("POST", "/sign-in/email", { body: { email, password: OLD } })))!;
    return { token, other, userId };
  },
  request: (t, c) =>
    answer(
      t.request("POST", "/change-password", {
        headers: bearer(c.token),
        body: { currentPassword: OLD, newPassword: NEW, revokeOtherSessions: true },
      }),
    ),
  scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.token, c.other] }),
  async missing(t, c) {
    if (!(await hasPassword(t, c.userId, NEW))) return "the password was not replaced";
    return (await alive(t, c.other)) ? "the other sessions are alive" : null;
  },
  invariants: async (_, c, s) => noSessionFromReplacedPassword(s, [{ token: c.other, password: OLD }], seamHasher),
  async retry(t, c) {
    const again = await this.request(t, c);
    if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBe(401);
  },
});

/** The fault cases of signing up and in and of the password: sign-up, OTP sign-in, resets, set and change. */
export const signInFaultCases = cases;
