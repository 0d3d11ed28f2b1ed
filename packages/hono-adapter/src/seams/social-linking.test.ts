import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
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
  type Answer,
} from "../../test/seams/harness.ts";
import { deliver, PROVIDER } from "../../test/routes/oauth/social-test-kit.ts";
import { bearer } from "../../test/test-auth.ts";
import {
  callbackAnswer,
  linkedAccount,
  PAIR_TIMEOUT_MS,
  readCallback,
  resultOf,
  sessionHashes,
  socialBudget,
  socialWorlds,
  type CallbackAnswer,
} from "../../test/seams/social-fixture.ts";

// Social sign-in racing the account's linked identities (issue 43): an unlink x a sign-in with the same identity,
// and a link by email x an email sign-up of the same address. The provider's part of a flow happens in the setup;
// what races is Latchkey's callback against another request, under every interleaving of their store calls. After
// each: the structural invariants, among them I14 (no user without a way to sign in) and I15 (one user per
// provider subject).

const { person, providerRedirect, socialSeamAuth } = socialWorlds();

describe.each(storeVariants())("social sign-in at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  for (const other of [true, false])
    it(
      `unlink x sign-in with the same identity (${other ? "another account left" : "the last account"}): the user keeps a way to sign in, no half state`,
      async () => {
        const seen = outcomes();
        const r = await exploreInterleavings({
          ...socialBudget(),
          async setup(wrap) {
            const t = socialSeamAuth(around(wrap(store)));
            const who = person();
            // The user signed up with this identity (its only account), signed in: the unlink's fresh session.
            const first = await providerRedirect(t, who);
            const signedIn = await readCallback(t, deliver(t, first.callback, first.stateCookie));
            expect(signedIn.error).toBeNull();
            const found = (await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub))!;
            const userId = found.user.id;
            const second = other ? person(who.email).sub : null;
            if (second) expect(await t.store.socialAccounts.link(linkedAccount(t, userId, second))).toBe("linked");
            const { callback, stateCookie } = await providerRedirect(t, who);
            return { t, who, userId, second, session: signedIn.token!, callback, stateCookie };
          },
          flows: ({ t, who, session, callback, stateCookie }) => ({
            unlink: () =>
              answer(
                t.request("POST", "/unlink-account", {
                  body: { provider: PROVIDER, accountId: who.sub },
                  headers: bearer(session),
                }),
              ),
            signIn: () => callbackAnswer(t, deliver(t, callback, stateCookie)),
          }),
          async check({ t, who, userId, second, session }, run) {
            const unlink = answerOf(run, "unlink");
            const signIn = resultOf<CallbackAnswer>(run, "signIn");
            // The invariants first (I14: the user keeps a way to sign in), then what each request answered.
            await structural(t, {
              userIds: [userId],
              emails: [who.email],
              sessionTokens: [session, ...(signIn.token ? [signIn.token] : [])],
              providerSubjects: [[PROVIDER, who.sub], ...(second ? [[PROVIDER, second] as const] : [])],
            });
            const accounts = (await t.store.accounts.listByUser(userId)).map((a) => a.accountId).sort();
            seen.add(signIn.error ?? "signed in");
            if (second) {
              expect(unlink.status, JSON.stringify(unlink.body)).toBe(200);
              // Gone for good: the provider is not trusted to link by email, so a sign-in after the unlink is refused.
              expect(accounts).toEqual([second]);
              expect(signIn.error === null || signIn.error === "ACCOUNT_EXISTS", String(signIn.error)).toBe(true);
            } else {
              expect(unlink.status, JSON.stringify(unlink.body)).toBe(409);
              expect(unlink.body.code).toBe("LAST_ACCOUNT");
              expect(accounts).toEqual([who.sub]);
              expect(signIn.error).toBeNull();
            }
            const sessions = await sessionHashes(t, userId);
            expect(sessions).toEqual([hashSecret(session), ...(signIn.token ? [hashSecret(signIn.token)] : [])].sort());
          },
        });
        if (other) seen.expect("signed in", "ACCOUNT_EXISTS");
        else seen.expect("signed in");
        report(`social unlink x sign-in (${other ? "another account" : "last account"})${name}`, r);
      },
      PAIR_TIMEOUT_MS,
    );

  it(
    "link by email (trusted, verified) x sign-up of the same email: one user per email and per subject",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...socialBudget(),
        async setup(wrap) {
          const t = socialSeamAuth(around(wrap(store)), { accountLinking: { trustedProviders: [PROVIDER] } });
          const who = person();
          const { callback, stateCookie } = await providerRedirect(t, who);
          return { t, who, callback, stateCookie };
        },
        flows: ({ t, who, callback, stateCookie }) => ({
          social: () => callbackAnswer(t, deliver(t, callback, stateCookie)),
          signUp: () => answer(t.request("POST", "/sign-up/email", { body: { email: who.email, password: PASSWORD } })),
        }),
        async check({ t, who }, run) {
          const social = resultOf<CallbackAnswer>(run, "social");
          const signUp = answerOf(run, "signUp") as Answer;
          // The provider proved the mailbox: the social sign-in always ends signed in, as a new user or linked.
          expect(social.error).toBeNull();
          expect([200, 422], JSON.stringify(signUp.body)).toContain(signUp.status);
          const user = await t.store.users.findByEmail(who.email);
          expect(user?.emailVerified).toBe(true);
          const found = await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub);
          expect(found?.user.id).toBe(user!.id);
          const accounts = await t.store.accounts.listByUser(user!.id);
          expect(accounts.filter((a) => a.accountId === who.sub)).toHaveLength(1);
          const signedUp = tokenOf(signUp);
          seen.add(signedUp ? "signed up, then linked" : `sign-up ${signUp.status}`);
          const sessions = await sessionHashes(t, user!.id);
          expect(sessions).toContain(hashSecret(social.token!));
          if (signedUp) {
            // The sign-up came first and the link proved the mailbox after it: the unverified registrant's password
            // and session went (the pre-hijack clean-up).
            expect(accounts.some((a) => a.passwordHash !== null)).toBe(false);
            expect(sessions).toEqual([hashSecret(social.token!)]);
          }
          await structural(t, {
            userIds: [user!.id],
            emails: [who.email],
            sessionTokens: [social.token!, ...(signedUp ? [signedUp] : [])],
            providerSubjects: [[PROVIDER, who.sub]],
          });
        },
      });
      seen.expect("signed up, then linked", "sign-up 422");
      report(`social link by email x sign-up of the same email${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );
});
