import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import {
  answeredSessionsExist,
  codesUnderAttemptLimit,
  describeViolations,
  exploreInterleavings,
  structuralViolations,
  takeSnapshot,
} from "@latchkey/test-support";
import { bearer } from "../../test/test-auth.ts";
import {
  answer,
  answerOf,
  budget,
  freshEmail,
  PASSWORD,
  report,
  seamAuth,
  sharedStore,
  storeVariants,
  tokenOf,
} from "../../test/seams/harness.ts";

const sendCode = async (t: ReturnType<typeof seamAuth>, email: string, purpose: string) => {
  const res = await t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose } });
  expect(res.status).toBe(200);
  return t.auth.getOtp(email)!;
};
const otpSignIn = (t: ReturnType<typeof seamAuth>, email: string, otp: string) =>
  answer(t.request("POST", "/sign-in/email-otp", { body: { email, otp } }));

describe("sign-in x email change, every interleaving", () => {
  const store = sharedStore();

  it("the address resolves to one user, and afterwards only the new address signs in", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins: [emailOtp({ emailChange: { enabled: true } })] });
        const email = freshEmail();
        const newEmail = freshEmail("new");
        const { token, userId } = await t.signUp(email, PASSWORD);
        const req = await t.request("POST", "/email-otp/request-email-change", {
          headers: bearer(token),
          body: { newEmail },
        });
        expect(req.status).toBe(200);
        return { t, email, newEmail, token, userId, code: t.auth.getOtp(newEmail)! };
      },
      flows: ({ t, email, newEmail, token, code }) => ({
        signIn: () => answer(t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } })),
        change: () =>
          answer(
            t.request("POST", "/email-otp/change-email", { headers: bearer(token), body: { newEmail, otp: code } }),
          ),
      }),
      async check({ t, email, newEmail, token, userId }, run) {
        expect(answerOf(run, "change").status, JSON.stringify(answerOf(run, "change").body)).toBe(200);
        expect([200, 401]).toContain(answerOf(run, "signIn").status);
        const late = tokenOf(answerOf(run, "signIn"));
        const snap = await takeSnapshot(t.store, {
          userIds: [userId],
          emails: [email, newEmail],
          sessionTokens: late ? [token, late] : [token],
        });
        const violations = [...structuralViolations(snap), ...answeredSessionsExist(snap, [token])];
        expect(violations, describeViolations(violations)).toEqual([]);
        expect(snap.byEmail.get(email)).toBeNull();
        expect(snap.byEmail.get(newEmail)?.id).toBe(userId);
        const old = await t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } });
        expect(old.status).toBe(401);
        const fresh = await t.request("POST", "/sign-in/email", { body: { email: newEmail, password: PASSWORD } });
        expect(fresh.status).toBe(200);
      },
    });
    report("sign-in x email change", r);
  });
});

describe("OTP send x OTP sign-in, every interleaving", () => {
  const store = sharedStore();

  it("one live code at a time, under the attempt limit, and the newest code signs in", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins: [emailOtp()] });
        const email = freshEmail();
        const { userId } = await t.signUp(email, PASSWORD);
        return { t, email, userId, first: await sendCode(t, email, "sign-in") };
      },
      flows: ({ t, email, first }) => ({
        send: () =>
          answer(t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } })),
        signIn: () => otpSignIn(t, email, first),
      }),
      async check({ t, email, userId, first }, run) {
        expect(answerOf(run, "send").status).toBe(200);
        const signIn = answerOf(run, "signIn");
        expect([200, 400]).toContain(signIn.status);
        const latest = t.auth.getOtp(email)!;
        expect(latest).not.toBe(first);
        const identifier = `otp:sign-in:${email}`;
        const answered = tokenOf(signIn);
        const snap = await takeSnapshot(t.store, {
          userIds: [userId],
          emails: [email],
          identifiers: [identifier],
          sessionTokens: answered ? [answered] : [],
        });
        const violations = [
          ...structuralViolations(snap),
          ...codesUnderAttemptLimit(snap, 5),
          ...answeredSessionsExist(snap, answered ? [answered] : []),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
        expect((await otpSignIn(t, email, latest)).status).toBe(200);
      },
    });
    report("OTP send x OTP sign-in", r);
  });
});

describe.each(storeVariants())(
  "two OTP sign-ins of one new email, every interleaving$name",
  ({ name, base, around }) => {
    const store = base();

    it("exactly one wins, one user with one account, and the winner's session exists", async () => {
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = seamAuth(around(wrap(store)), { plugins: [emailOtp()] });
          const email = freshEmail("otp");
          return { t, email, code: await sendCode(t, email, "sign-in") };
        },
        flows: ({ t, email, code }) => ({ a: () => otpSignIn(t, email, code), b: () => otpSignIn(t, email, code) }),
        async check({ t, email }, run) {
          const answers = [answerOf(run, "a"), answerOf(run, "b")];
          expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
          const token = answers.map(tokenOf).find(Boolean)!;
          const snap = await takeSnapshot(t.store, { emails: [email], sessionTokens: [token] });
          const violations = [...structuralViolations(snap), ...answeredSessionsExist(snap, [token])];
          expect(violations, describeViolations(violations)).toEqual([]);
          const user = snap.byEmail.get(email)!;
          expect(snap.accounts.get(user.id)).toHaveLength(1);
          // Counted where transactions roll back (not under a compensating transaction: see takeSnapshot).
          if (snap.sessionCounts.has(user.id)) expect(snap.sessionCounts.get(user.id)).toBe(1);
        },
      });
      report(`two OTP sign-ins of one new email${name}`, r);
    });
  },
);

describe.each(storeVariants())(
  "sign-up x OTP sign-in of the same email, every interleaving$name",
  ({ name, base, around }) => {
    const store = base();

    it("one user for the address, with an account; the OTP sign-in's session exists", async () => {
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = seamAuth(around(wrap(store)), { plugins: [emailOtp()] });
          const email = freshEmail("race");
          return { t, email, code: await sendCode(t, email, "sign-in") };
        },
        flows: ({ t, email, code }) => ({
          signUp: () => answer(t.request("POST", "/sign-up/email", { body: { email, password: PASSWORD } })),
          otp: () => otpSignIn(t, email, code),
        }),
        async check({ t, email }, run) {
          const signUp = answerOf(run, "signUp");
          const otp = answerOf(run, "otp");
          expect(otp.status, JSON.stringify(otp.body)).toBe(200);
          expect([200, 422], JSON.stringify(signUp.body)).toContain(signUp.status);
          const otpToken = tokenOf(otp)!;
          const signUpToken = tokenOf(signUp);
          const snap = await takeSnapshot(t.store, {
            emails: [email],
            sessionTokens: signUpToken ? [otpToken, signUpToken] : [otpToken],
          });
          const violations = [...structuralViolations(snap), ...answeredSessionsExist(snap, [otpToken])];
          expect(violations, describeViolations(violations)).toEqual([]);
          const user = snap.byEmail.get(email)!;
          expect(user.emailVerified).toBe(true);
          // Whoever came first, the mailbox proof leaves no password the prover did not set (pre-account hijacking).
          if (signUpToken)
            expect(snap.sessions.get(signUpToken), "the sign-up's session survived the OTP proof").toBeNull();
        },
      });
      report(`sign-up x OTP sign-in of the same email${name}`, r);
    });
  },
);
