import { describe, expect, it } from "vitest";
import { admin, type FullStore } from "@latchkey/core";
import { exploreInterleavings } from "@latchkey/test-support";
import {
  answer,
  answerOf,
  budget,
  freshEmail,
  outcomes,
  PASSWORD,
  report,
  seamAuth,
  storeVariants,
  structural,
  tokenOf,
} from "../../test/seams/harness.ts";
import { bearer, type TestAuth } from "../../test/test-auth.ts";

// A ban racing the user's own sign-in (issue 46): whatever the interleaving, the banned user keeps no session (I16),
// and the sign-in either came first (its session then revoked by the ban) or was refused with 403 USER_BANNED.
// A demotion racing the demoted admin's impersonation (decision 0080): no impersonation outlives the role.

const PAIR_TIMEOUT_MS = 120_000;

function adminAuth(store: FullStore) {
  return seamAuth(store, { plugins: [admin()] }) as unknown as TestAuth;
}

describe.each(storeVariants())("admin at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it(
    "ban x password sign-in: no session of the banned user; the sign-in before the ban (then revoked) or refused",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = adminAuth(around(wrap(store)));
          const boss = await t.signUp(freshEmail("boss"), PASSWORD);
          await t.auth.api.updateUser(boss.userId, { appMetadata: { role: "admin" } });
          const email = freshEmail("banned");
          const victim = await t.signUp(email, PASSWORD);
          return { t, email, boss, victim };
        },
        flows: ({ t, email, boss, victim }) => ({
          ban: () =>
            answer(
              t.request("POST", "/admin/ban-user", { body: { userId: victim.userId }, headers: bearer(boss.token) }),
            ),
          signIn: () => answer(t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } })),
        }),
        async check({ t, email, victim }, run) {
          expect(answerOf(run, "ban").status, JSON.stringify(answerOf(run, "ban").body)).toBe(200);
          const signIn = answerOf(run, "signIn");
          if (signIn.status === 200) seen.add("signed in, then revoked by the ban");
          else {
            seen.add("refused");
            expect(signIn.status, JSON.stringify(signIn.body)).toBe(403);
            expect(signIn.body.code).toBe("USER_BANNED");
          }
          const late = tokenOf(signIn);
          const snap = await structural(t, {
            userIds: [victim.userId],
            emails: [email],
            sessionTokens: late ? [victim.token, late] : [victim.token],
          });
          expect(snap.users.get(victim.userId)?.banned).toBe(true);
          if (late) expect(snap.sessions.get(late)).toBeNull();
          expect(snap.sessions.get(victim.token)).toBeNull();
        },
      });
      seen.expect("signed in, then revoked by the ban", "refused");
      report(`ban x password sign-in${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "ban x impersonation of the user: no session of the banned user; the impersonation before the ban or refused",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = adminAuth(around(wrap(store)));
          const boss = await t.signUp(freshEmail("boss"), PASSWORD);
          await t.auth.api.updateUser(boss.userId, { appMetadata: { role: "admin" } });
          const other = await t.signUp(freshEmail("boss2"), PASSWORD);
          await t.auth.api.updateUser(other.userId, { appMetadata: { role: "admin" } });
          const email = freshEmail("watched");
          const victim = await t.signUp(email, PASSWORD);
          return { t, email, boss, other, victim };
        },
        flows: ({ t, boss, other, victim }) => ({
          ban: () =>
            answer(
              t.request("POST", "/admin/ban-user", { body: { userId: victim.userId }, headers: bearer(boss.token) }),
            ),
          impersonate: () =>
            answer(
              t.request("POST", "/admin/impersonate-user", {
                body: { userId: victim.userId },
                headers: bearer(other.token),
              }),
            ),
        }),
        async check({ t, email, victim }, run) {
          expect(answerOf(run, "ban").status).toBe(200);
          const imp = answerOf(run, "impersonate");
          if (imp.status === 200) seen.add("impersonated, then revoked by the ban");
          else {
            seen.add("refused");
            expect(imp.status, JSON.stringify(imp.body)).toBe(403);
            expect(imp.body.code).toBe("USER_BANNED");
          }
          const late = tokenOf(imp);
          const snap = await structural(t, {
            userIds: [victim.userId],
            emails: [email],
            sessionTokens: late ? [victim.token, late] : [victim.token],
          });
          if (late) expect(snap.sessions.get(late)).toBeNull();
        },
      });
      seen.expect("impersonated, then revoked by the ban", "refused");
      report(`ban x impersonation${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "demotion x impersonation by the demoted admin: no impersonation outlives the role; started before (then ended) or refused",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = adminAuth(around(wrap(store)));
          const root = await t.signUp(freshEmail("root"), PASSWORD);
          await t.auth.api.updateUser(root.userId, { appMetadata: { role: "admin" } });
          const boss = await t.signUp(freshEmail("boss"), PASSWORD);
          await t.auth.api.updateUser(boss.userId, { appMetadata: { role: "admin" } });
          const email = freshEmail("watched");
          const victim = await t.signUp(email, PASSWORD);
          return { t, email, root, boss, victim };
        },
        flows: ({ t, root, boss, victim }) => ({
          demote: () =>
            answer(
              t.request("POST", "/admin/set-role", {
                body: { userId: boss.userId, role: "member" },
                headers: bearer(root.token),
              }),
            ),
          impersonate: () =>
            answer(
              t.request("POST", "/admin/impersonate-user", {
                body: { userId: victim.userId },
                headers: bearer(boss.token),
              }),
            ),
        }),
        async check({ t, email, victim }, run) {
          expect(answerOf(run, "demote").status).toBe(200);
          const imp = answerOf(run, "impersonate");
          if (imp.status === 200) seen.add("impersonated, then ended by the demotion");
          else {
            seen.add("refused");
            expect(imp.status, JSON.stringify(imp.body)).toBe(403);
          }
          const late = tokenOf(imp);
          const snap = await structural(t, {
            userIds: [victim.userId],
            emails: [email],
            sessionTokens: late ? [victim.token, late] : [victim.token],
          });
          if (late) expect(snap.sessions.get(late)).toBeNull();
          expect(snap.sessions.get(victim.token)).not.toBeNull();
          const stored = await t.store.sessions.listByUser(victim.userId);
          expect(stored.filter((x) => x.impersonatedBy !== null)).toEqual([]);
        },
      });
      seen.expect("impersonated, then ended by the demotion", "refused");
      report(`demotion x impersonation${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );
});
