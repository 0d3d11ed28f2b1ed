import { describe, expect, it } from "vitest";
import { PASSKEYS_PLUGIN_ID, passkeys, type FullStore } from "@latchkey/core";
import { exploreInterleavings, type ScheduleRun } from "@latchkey/test-support";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import {
  answer,
  answerOf,
  freshEmail,
  outcomes,
  PASSWORD,
  report,
  seamAuth,
  storeVariants,
  structural,
  tokenOf,
} from "../../test/seams/harness.ts";
import { BASE_URL, bearer, type TestAuth } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";

// Passkeys racing the account's other flows (issue 44): registration x deletion of the user's last passkey, x
// the account's deletion and x the first proof of the mailbox; a passkey sign-in x the account's deletion and x a password reset. After each interleaving:
// the structural invariants, among them I2 (no passkey of a deleted user) and I14 (no user without a way to sign in,
// a passkey counting as one).

/** Each world signs up, registers and signs ES256 responses: a smaller budget than the password pairs. */
const passkeyBudget = () =>
  testStoreKind() === "memory" ? { exhaustiveLimit: 150, samples: 50 } : { exhaustiveLimit: 60, samples: 20 };

const PAIR_TIMEOUT_MS = 120_000;

type CreationOptions = Parameters<SoftwareAuthenticator["create"]>[0];
type RequestOptions = Parameters<SoftwareAuthenticator["get"]>[0];

function passkeyAuth(store: FullStore) {
  return seamAuth(store, {
    plugins: [passkeys({ rpId: "app.example", rpName: "Example", allowPasskeyOnlyAccounts: true })],
  }) as unknown as TestAuth;
}

const service = (t: TestAuth) => t.auth.core.plugins.get(PASSKEYS_PLUGIN_ID)!.service;
const META = { ip: null, userAgent: null };

/** A verified password user with one passkey (registered through the service): the user, session and device. */
async function passwordUserWithPasskey(t: TestAuth) {
  const email = freshEmail("pk");
  const { token, userId } = await t.signUp(email, PASSWORD);
  // Verified: a first proof of the mailbox (a reset link of an unverified user) would remove the passkey on purpose.
  const updated = await t.store.users.update(userId, { emailVerified: true, updatedAt: new Date(t.clock.now()) });
  if (!updated?.ok) throw new Error("could not mark the user verified");
  const device = new SoftwareAuthenticator({ origin: BASE_URL });
  const user = updated.value;
  const creation = await service(t).registrationOptions(user);
  const passkey = await service(t).register(
    user,
    { token: creation.token, response: await device.create(creation.options) },
    META,
  );
  return { email, token, userId, device, passkey };
}

/** Registration options of the session's user answered by a new authenticator: the verify body, ready to send. */
async function pendingRegistration(t: TestAuth, session: string) {
  const res = await t.request("POST", "/passkey/register/options", { body: {}, headers: bearer(session) });
  expect(res.status).toBe(200);
  const { options, challengeToken } = (await res.json()) as { options: CreationOptions; challengeToken: string };
  const response = await new SoftwareAuthenticator({ origin: BASE_URL }).create(options);
  return { response, challengeToken };
}

/** A discoverable sign-in answered by `device`: the verify body, ready to send. */
async function pendingSignIn(t: TestAuth, device: SoftwareAuthenticator) {
  const { options, token } = await service(t).authenticationOptions({});
  return { response: await device.get(options as RequestOptions), challengeToken: token };
}

const statusOf = (run: ScheduleRun<unknown>, flow: string) => answerOf(run, flow).status;

describe.each(storeVariants())("passkeys at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it(
    "register x delete of a passkey-only user's only passkey: never left without one, the delete refused or after the new one",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...passkeyBudget(),
        async setup(wrap) {
          const t = passkeyAuth(around(wrap(store)));
          const email = freshEmail("pkonly");
          const opts = await t.request("POST", "/passkey/sign-up/options", { body: { email } });
          const { options, challengeToken } = (await opts.json()) as {
            options: CreationOptions;
            challengeToken: string;
          };
          const device = new SoftwareAuthenticator({ origin: BASE_URL });
          const signedUp = await answer(
            t.request("POST", "/passkey/sign-up/verify", {
              body: { response: await device.create(options), challengeToken },
            }),
          );
          expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
          const session = tokenOf(signedUp)!;
          const userId = (signedUp.body.user as { id: string }).id;
          const [first] = await t.store.passkeys.listByUser(userId);
          return { t, email, userId, session, first: first!, next: await pendingRegistration(t, session) };
        },
        flows: ({ t, session, first, next }) => ({
          register: () =>
            answer(t.request("POST", "/passkey/register/verify", { body: next, headers: bearer(session) })),
          delete: () => answer(t.request("DELETE", `/passkey/${first.id}`, { headers: bearer(session) })),
        }),
        async check({ t, email, userId, session, first, next }, run) {
          expect(statusOf(run, "register"), JSON.stringify(answerOf(run, "register").body)).toBe(200);
          const del = answerOf(run, "delete");
          const snap = await structural(t, {
            userIds: [userId],
            emails: [email],
            sessionTokens: [session],
            passkeyCredentials: [first.credentialId, next.response.id],
          });
          const held = (snap.passkeys.get(userId) ?? []).map((p) => p.credentialId).sort();
          if (del.status === 200) {
            seen.add("deleted after the new one");
            expect(held).toEqual([next.response.id]);
          } else {
            seen.add("refused as the last");
            expect(del.status, JSON.stringify(del.body)).toBe(409);
            expect(del.body.code).toBe("LAST_ACCOUNT");
            expect(held).toEqual([first.credentialId, next.response.id].sort());
          }
        },
      });
      seen.expect("deleted after the new one", "refused as the last");
      report(`passkey register x delete of the last${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "register x account deletion: no passkey of the deleted user, the registration before it or refused",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...passkeyBudget(),
        async setup(wrap) {
          const t = passkeyAuth(around(wrap(store)));
          const email = freshEmail("pkreg");
          const { token, userId } = await t.signUp(email, PASSWORD);
          return { t, email, token, userId, next: await pendingRegistration(t, token) };
        },
        flows: ({ t, token, next }) => ({
          register: () => answer(t.request("POST", "/passkey/register/verify", { body: next, headers: bearer(token) })),
          delete: () =>
            answer(t.request("POST", "/delete-account", { body: { password: PASSWORD }, headers: bearer(token) })),
        }),
        async check({ t, email, token, userId, next }, run) {
          expect(statusOf(run, "delete"), JSON.stringify(answerOf(run, "delete").body)).toBe(200);
          const reg = answerOf(run, "register");
          // Refused cleanly when the deletion came first, never a 500: the session or the owner is gone (401), or
          // the challenge, a row of the user, went with them (400 PASSKEY_CHALLENGE_INVALID).
          if (reg.status === 400) expect(reg.body.code).toBe("PASSKEY_CHALLENGE_INVALID");
          else expect([200, 401], JSON.stringify(reg.body)).toContain(reg.status);
          seen.add(reg.status === 200 ? "registered, then deleted" : "refused");
          const snap = await structural(t, {
            userIds: [userId],
            emails: [email],
            sessionTokens: [token],
            passkeyCredentials: [next.response.id],
          });
          expect(snap.users.get(userId)).toBeNull();
          expect(snap.byCredential.get(next.response.id)).toBeNull();
        },
      });
      seen.expect("registered, then deleted", "refused");
      report(`passkey register x account deletion${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "register x the first proof of the mailbox (a verification link opened elsewhere): the registrant keeps no passkey",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...passkeyBudget(),
        async setup(wrap) {
          const t = passkeyAuth(around(wrap(store)));
          const email = freshEmail("pkproof");
          // Not verified: whoever signed up has not shown the mailbox is theirs.
          const { token, userId } = await t.signUp(email, PASSWORD);
          const next = await pendingRegistration(t, token);
          expect((await t.request("POST", "/send-verification-email", { body: { email } })).status).toBe(200);
          await t.settle();
          const link = t.auth.getOtp(email);
          if (!link) throw new Error("no verification token captured");
          return { t, email, token, userId, next, link };
        },
        flows: ({ t, email, token, next, link }) => ({
          register: () => answer(t.request("POST", "/passkey/register/verify", { body: next, headers: bearer(token) })),
          prove: () => answer(t.request("POST", "/verify-email", { body: { email, token: link } })),
        }),
        async check({ t, email, token, userId, next }, run) {
          expect(statusOf(run, "prove"), JSON.stringify(answerOf(run, "prove").body)).toBe(200);
          const reg = answerOf(run, "register");
          // Registered before the proof (then removed by it), or refused: the session is gone (401), or the
          // challenge went with the proof's cleanup (400).
          if (reg.status === 400) expect(reg.body.code).toBe("PASSKEY_CHALLENGE_INVALID");
          else expect([200, 401], JSON.stringify(reg.body)).toContain(reg.status);
          seen.add(reg.status === 200 ? "registered, then removed by the proof" : "refused");
          const snap = await structural(
            t,
            {
              userIds: [userId],
              emails: [email],
              sessionTokens: [token],
              passkeyCredentials: [next.response.id],
            },
            // The link proved the mailbox of a user who never had: the registrant's password went with the proof,
            // and the owner's way in is the mailbox itself (a reset), which is no account row yet.
            [
              { invariant: 1, userId },
              { invariant: 14, userId },
            ],
          );
          expect(snap.users.get(userId)?.emailVerified).toBe(true);
          expect(snap.sessions.get(token)).toBeNull();
          expect(snap.byCredential.get(next.response.id)).toBeNull();
        },
      });
      seen.expect("registered, then removed by the proof", "refused");
      report(`passkey register x first mailbox proof${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

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
