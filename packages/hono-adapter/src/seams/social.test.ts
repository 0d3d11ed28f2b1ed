import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { hashSecret, oauth, type AccountRecord, type OAuthOptions } from "@latchkey/core";
import { exploreInterleavings, type ScheduleRun } from "@latchkey/test-support";
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
  type Answer,
} from "../../test/seams/harness.ts";
import { authorizeAt, startTestOidcProvider, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { deliver, exampleId, PROVIDER, REDIRECT_URI, startFlow } from "../../test/routes/oauth/social-test-kit.ts";
import { bearer, type TestAuth } from "../../test/test-auth.ts";

// Social sign-in racing the account's other flows (issue 43). The provider's part of a flow (the login, the code)
// happens in the setup; what races is Latchkey's callback (state spent, code redeemed, account found or created,
// session) against another request, under every interleaving of their store calls. After each: the structural
// invariants, among them I14 (no user without a way to sign in) and I15 (one user per provider subject).

/**
 * The pair budget of a database run on every store (150 + 50): each world runs a flow at the provider (two for the
 * unlink pair) before the pair, and the deletion pair's 15 steps have thousands of interleavings anyway.
 */
const socialBudget = () => ({ exhaustiveLimit: 150, samples: 50 });

/** Each pair's own time limit: its worlds go to the provider and hash passwords, and a database costs round trips. */
const PAIR_TIMEOUT_MS = 120_000;

let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startTestOidcProvider([REDIRECT_URI]);
});
afterAll(async () => {
  await idp.close();
});

let seq = 0;
/** A provider identity of its own per world, so worlds on one shared database never meet. */
const person = (email = freshEmail("social")) => ({
  sub: `seams-${process.pid}-${++seq}`,
  email,
  email_verified: true,
  name: "Ada Lovelace",
});

/** What a callback answered: its redirect's `?error=` (null on success) and the session its cookie carries. */
interface CallbackAnswer {
  status: number;
  error: string | null;
  /** The session token of the cookie it set, or null. */
  token: string | null;
}

/** A flow's result as the scheduler keeps it: a pair's flows answer differently shaped results. */
type FlowResult = CallbackAnswer | Answer;

async function callbackAnswer(t: TestAuth, res: Promise<Response>): Promise<FlowResult> {
  return readCallback(t, res);
}

async function readCallback(t: TestAuth, res: Promise<Response>): Promise<CallbackAnswer> {
  const r = await res;
  await r.body?.cancel();
  const location = r.headers.get("location");
  const name = t.auth.core.config.cookies.name;
  const line = r.headers.getSetCookie().find((l) => l.split("=")[0] === name && !/Max-Age=0/i.test(l));
  const value = line ? (line.split(";")[0] as string).slice(name.length + 1) : "";
  return {
    status: r.status,
    error: location ? new URL(location).searchParams.get("error") : null,
    token: value ? decodeURIComponent(value) : null,
  };
}

/** An auth with `oauth()` over the test provider, its clock at the real time (the provider's tokens use it). */
function socialSeamAuth(store: Parameters<typeof seamAuth>[0], options: Partial<OAuthOptions> = {}): TestAuth {
  const t = seamAuth(store, { plugins: [oauth({ providers: [exampleId(idp)], ...options })] }) as unknown as TestAuth;
  t.clock.set(Date.now());
  return t;
}

/** A sign-in flow of `who`, run at the provider up to its redirect back: what the browser will deliver. */
async function providerRedirect(t: TestAuth, who: ReturnType<typeof person>) {
  const { url, stateCookie } = await startFlow(t);
  idp.login(who);
  return { callback: await authorizeAt(url), stateCookie };
}

/** A linked account row of `who` for `userId`, written straight to the store (no tokens): the setup's shortcut. */
function linkedAccount(t: TestAuth, userId: string, sub: string): AccountRecord {
  const at = new Date(t.clock.now());
  return {
    id: randomUUID().replaceAll("-", ""),
    userId,
    providerId: PROVIDER,
    passwordHash: null,
    accountId: sub,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: at,
    updatedAt: at,
  };
}

const resultOf = <R>(run: ScheduleRun<unknown>, flow: string): R => {
  const r = run.results[flow]!;
  if (!r.ok) throw r.error;
  return r.value as R;
};

/** The tokens of the user's sessions (as hashes). */
const sessionHashes = async (t: TestAuth, userId: string) =>
  (await t.store.sessions.listByUser(userId)).map((s) => s.tokenHash).sort();

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
