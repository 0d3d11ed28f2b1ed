import { describe, expect, it } from "vitest";
import { exploreInterleavings } from "@latchkey/test-support";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import {
  answer,
  answerOf,
  freshEmail,
  outcomes,
  PASSWORD,
  report,
  storeVariants,
  structural,
  tokenOf,
} from "../../test/seams/harness.ts";
import { BASE_URL, bearer } from "../../test/test-auth.ts";
import {
  PAIR_TIMEOUT_MS,
  passkeyAuth,
  passkeyBudget,
  pendingRegistration,
  statusOf,
  type CreationOptions,
} from "../../test/seams/passkey-fixture.ts";

// A passkey's registration racing the account's other flows (issue 44): x the deletion of the user's last passkey,
// x the account's deletion and x the first proof of the mailbox. After each interleaving: the structural
// invariants, among them I2 (no passkey of a deleted user) and I14 (no user without a way to sign in, a passkey
// counting as one).

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
});
