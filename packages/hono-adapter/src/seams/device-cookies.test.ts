import { describe, expect, it } from "vitest";
import {
  describeViolations,
  exploreInterleavings,
  noDeviceOutlivesPasswordChange,
  structuralViolations,
  takeSnapshot,
} from "@latchkey/test-support";
import {
  answer,
  answerOf,
  budget,
  freshEmail,
  PASSWORD,
  report,
  seamAuth,
  storeVariants,
  type Answer,
} from "../../test/seams/harness.ts";
import { bearer, deviceCookieOf, type TestAuth } from "../../test/test-auth.ts";

// Issue 42: device-cookie sign-in racing a lockout, a password reset and an account deletion (docs/invariants.md).

const NEW = "a brand new password";
const DEVICE = "__Host-latchkey.device";

/**
 * A smaller share of the pair budget: three pairs whose worlds each sign up, sign in and guess before the pair runs
 * (memory 150 + 50, a database 60 + 20).
 */
const deviceBudget = () => {
  const { exhaustiveLimit } = budget();
  return exhaustiveLimit >= 400 ? { exhaustiveLimit: 150, samples: 50 } : { exhaustiveLimit: 60, samples: 20 };
};

/** Each pair's own time limit: its worlds hash passwords (cheap parameters) and a database costs round trips. */
const PAIR_TIMEOUT_MS = 120_000;

/** A world with device cookies on; `lockout` on only where the pair is about it. */
const deviceWorld = (store: Parameters<typeof seamAuth>[0], lockout = false) =>
  seamAuth(store, { deviceCookies: { enabled: true }, lockout: { enabled: lockout } });

/** Signs up and signs in once: the account's id, a session token and the browser's device token. */
async function knownDevice(t: TestAuth, email: string) {
  const { userId } = await t.signUp(email, PASSWORD);
  const res = await t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } });
  const { credentials } = (await res.json()) as { credentials: { token: string } };
  return { userId, token: credentials.token, device: deviceCookieOf(res)! };
}

const deviceSignIn = (t: TestAuth, email: string, device: string, password = PASSWORD) =>
  answer(
    t.request("POST", "/sign-in/email", {
      body: { email, password },
      headers: { cookie: `${DEVICE}=${device}`, "latchkey-credentials": "bearer" },
    }),
  );

/** The device token a sign-in answer carries (`credentials.deviceToken`), if any. */
const deviceTokenOf = (a: Answer): string | null =>
  (a.body.credentials as { deviceToken?: string } | undefined)?.deviceToken ?? null;

describe.each(storeVariants())(
  "device-cookie sign-in x the account's state, every interleaving$name",
  ({ name, base, around }) => {
    const store = base();

    it(
      "x the guess that locks the account: the known device signs in whatever the order",
      async () => {
        const r = await exploreInterleavings({
          ...deviceBudget(),
          async setup(wrap) {
            const t = deviceWorld(around(wrap(store)), true);
            const email = freshEmail();
            const { device } = await knownDevice(t, email);
            // Four strangers' failures: the next wrong password locks the account.
            for (let i = 0; i < 4; i++)
              await t.request("POST", "/sign-in/email", { body: { email, password: "a wrong guess" } });
            return { t, email, device };
          },
          flows: ({ t, email, device }) => ({
            known: () => deviceSignIn(t, email, device),
            guess: () => answer(t.request("POST", "/sign-in/email", { body: { email, password: "the fifth guess" } })),
          }),
          async check({ t, email }, run) {
            expect(answerOf(run, "known").status, JSON.stringify(answerOf(run, "known").body)).toBe(200);
            expect(answerOf(run, "guess").status).toBe(401);
            // The account is locked for everyone else.
            const after = await t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } });
            expect(after.status).toBe(429);
          },
        });
        report(`device sign-in x lockout${name}`, r);
      },
      PAIR_TIMEOUT_MS,
    );

    it(
      "x a password reset: no device cookie outlives the password change (I12), and no 5xx",
      async () => {
        const r = await exploreInterleavings({
          ...deviceBudget(),
          async setup(wrap) {
            const t = deviceWorld(around(wrap(store)));
            const email = freshEmail();
            const { userId, device } = await knownDevice(t, email);
            expect((await t.request("POST", "/request-password-reset", { body: { email } })).status).toBe(200);
            return { t, email, userId, device, link: t.auth.getOtp(email)! };
          },
          flows: ({ t, email, device, link }) => ({
            signIn: () => deviceSignIn(t, email, device),
            reset: () => answer(t.request("POST", "/reset-password", { body: { token: link, newPassword: NEW } })),
          }),
          async check({ t, email, userId, device }, run) {
            expect(answerOf(run, "reset").status).toBe(200);
            const signIn = answerOf(run, "signIn");
            expect([200, 401], JSON.stringify(signIn.body)).toContain(signIn.status);
            const rotated = deviceTokenOf(signIn);
            const snap = await takeSnapshot(t.store, { userIds: [userId], emails: [email] });
            const violations = [
              ...structuralViolations(snap),
              ...(await noDeviceOutlivesPasswordChange(
                snap,
                userId,
                rotated ? [device, rotated] : [device],
                (token, id, hash) => t.auth.core.ctx.devices.recognise(token, id, hash),
              )),
            ];
            expect(violations, describeViolations(violations)).toEqual([]);
          },
        });
        report(`device sign-in x password reset${name}`, r);
      },
      PAIR_TIMEOUT_MS,
    );

    it(
      "x account deletion: no device row of the deleted user stays, and the sign-in answers 200 or 401",
      async () => {
        const r = await exploreInterleavings({
          ...deviceBudget(),
          async setup(wrap) {
            const t = deviceWorld(around(wrap(store)));
            const email = freshEmail();
            const { userId, token, device } = await knownDevice(t, email);
            return { t, email, userId, token, device };
          },
          flows: ({ t, email, token, device }) => ({
            signIn: () => deviceSignIn(t, email, device),
            delete: () =>
              answer(t.request("POST", "/delete-account", { body: { password: PASSWORD }, headers: bearer(token) })),
          }),
          async check({ t, email, userId, device }, run) {
            expect(answerOf(run, "delete").status).toBe(200);
            const signIn = answerOf(run, "signIn");
            expect([200, 401], JSON.stringify(signIn.body)).toContain(signIn.status);
            const deviceId = device.split(".")[0]!;
            expect(await t.store.verifications.findByIdentifier(`device:${userId}:${deviceId}`)).toBeNull();
            const snap = await takeSnapshot(t.store, { userIds: [userId], emails: [email] });
            const violations = structuralViolations(snap);
            expect(violations, describeViolations(violations)).toEqual([]);
          },
        });
        report(`device sign-in x account deletion${name}`, r);
      },
      PAIR_TIMEOUT_MS,
    );
  },
);
