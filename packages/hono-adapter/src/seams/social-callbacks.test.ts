import { beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { exploreInterleavings } from "@latchkey/test-support";
import type { TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { answer, answerOf, outcomes, PASSWORD, report, storeVariants, structural } from "../../test/seams/harness.ts";
import { deliver, PROVIDER } from "../../test/routes/oauth/social-test-kit.ts";
import { bearer } from "../../test/test-auth.ts";
import {
  callbackAnswer,
  linkedAccount,
  PAIR_TIMEOUT_MS,
  resultOf,
  sessionHashes,
  socialBudget,
  socialWorlds,
  type CallbackAnswer,
} from "../../test/seams/social-fixture.ts";

// Social sign-in callbacks racing each other and the account's deletion (issue 43). The provider's part of a flow
// (the login, the code) happens in the setup; what races is Latchkey's callback (state spent, code redeemed, account
// found or created, session) against another request, under every interleaving of their store calls. After each:
// the structural invariants, among them I14 (no user without a way to sign in) and I15 (one user per provider
// subject).

const { person, provider, providerRedirect, socialSeamAuth } = socialWorlds();
/** The file's provider (the pair of callbacks counts the token requests it saw). */
let idp: TestOidcProvider;
beforeAll(() => {
  idp = provider();
});

describe.each(storeVariants())("social sign-in at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it(
    "two callbacks of one flow: exactly one goes on (one user, one account, one session), the other is refused by the spent state",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...socialBudget(),
        async setup(wrap) {
          const t = socialSeamAuth(around(wrap(store)));
          const who = person();
          const { callback, stateCookie } = await providerRedirect(t, who);
          return { t, who, callback, stateCookie, redeemed: idp.tokenRequests() };
        },
        flows: ({ t, callback, stateCookie }) => ({
          a: () => callbackAnswer(t, deliver(t, callback, stateCookie)),
          b: () => callbackAnswer(t, deliver(t, callback, stateCookie)),
        }),
        async check({ t, who, redeemed }, run) {
          const answers = ["a", "b"].map((f) => resultOf<CallbackAnswer>(run, f));
          for (const a of answers) expect(a.status).toBe(302);
          const won = answers.filter((a) => a.error === null);
          expect(won).toHaveLength(1);
          seen.add(answers[0]!.error === null ? "a won" : "b won");
          // The loser stopped at the state: the code went to the provider once.
          expect(answers.filter((a) => a.error !== null).map((a) => a.error)).toEqual(["OAUTH_STATE_MISMATCH"]);
          expect(idp.tokenRequests() - redeemed).toBe(1);
          const found = await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub);
          expect(found?.user.email).toBe(who.email);
          const userId = found!.user.id;
          expect((await t.store.accounts.listByUser(userId)).map((a) => a.accountId)).toEqual([who.sub]);
          expect(await sessionHashes(t, userId)).toEqual([hashSecret(won[0]!.token!)]);
          await structural(t, { userIds: [userId], emails: [who.email], providerSubjects: [[PROVIDER, who.sub]] });
        },
      });
      seen.expect("a won", "b won");
      report(`two callbacks of one social flow${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "callback x account deletion: nothing of the deleted user is left, and the sign-in failed cleanly or came first",
    async () => {
      const seen = outcomes();
      // Explored twice, each flow first once: the depth-first enumeration varies the last steps first, so from the
      // callback's side it reaches "signed in, then deleted" and "refused", from the deletion's side "deleted, then
      // a new user", each within its enumerated part (never hanging on the random sample).
      const explore = (first: "callback" | "delete", budget: { exhaustiveLimit: number; samples: number }) =>
        exploreInterleavings({
          ...budget,
          async setup(wrap) {
            const t = socialSeamAuth(around(wrap(store)));
            const who = person();
            const { token, userId } = await t.signUp(who.email, PASSWORD);
            expect(await t.store.socialAccounts.link(linkedAccount(t, userId, who.sub))).toBe("linked");
            const { callback, stateCookie } = await providerRedirect(t, who);
            return { t, who, token, userId, callback, stateCookie };
          },
          flows: ({ t, token, callback, stateCookie }) => {
            const flows = {
              callback: () => callbackAnswer(t, deliver(t, callback, stateCookie)),
              delete: () =>
                answer(t.request("POST", "/delete-account", { body: { password: PASSWORD }, headers: bearer(token) })),
            };
            return first === "callback" ? flows : { delete: flows.delete, callback: flows.callback };
          },
          async check({ t, who, token, userId }, run) {
            expect(answerOf(run, "delete").status, JSON.stringify(answerOf(run, "delete").body)).toBe(200);
            const signIn = resultOf<CallbackAnswer>(run, "callback");
            expect(signIn.status).toBe(302);
            if (signIn.error !== null) {
              seen.add("sign-in refused");
              expect(signIn.token).toBeNull();
              // The deletion won between the sign-in's lookup and its session: a clean error, never a 500.
              expect(signIn.error).not.toBe("INTERNAL_ERROR");
            }
            expect(await t.store.users.findById(userId)).toBeNull();
            // A sign-in that ran after the deletion made a new user of the identity: then it is whole and only it.
            const found = await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub);
            if (signIn.error === null)
              seen.add(found ? "a new user after the deletion" : "signed in before the deletion");
            if (found) {
              expect(found.user.id).not.toBe(userId);
              expect(signIn.error).toBeNull();
              expect(await sessionHashes(t, found.user.id)).toEqual([hashSecret(signIn.token!)]);
            }
            const snap = await structural(t, {
              userIds: [userId],
              emails: [who.email],
              sessionTokens: signIn.token ? [token, signIn.token] : [token],
              providerSubjects: [[PROVIDER, who.sub]],
            });
            expect(snap.accounts.get(userId)).toEqual([]);
            if (snap.sessionCounts.size > 0) expect(snap.sessionCounts.get(userId)).toBe(0);
          },
        });
      report(
        `social callback x account deletion (callback first)${name}`,
        await explore("callback", { exhaustiveLimit: 100, samples: 25 }),
      );
      report(
        `social callback x account deletion (deletion first)${name}`,
        await explore("delete", { exhaustiveLimit: 50, samples: 25 }),
      );
      seen.expect("sign-in refused", "a new user after the deletion", "signed in before the deletion");
    },
    PAIR_TIMEOUT_MS,
  );
});
