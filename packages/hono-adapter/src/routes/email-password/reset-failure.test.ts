import { describe, expect, it } from "vitest";
import { compensatingTransaction, type AccountStore, type FullStore, type FullStorePorts } from "@latchkey/core";
import { databaseUnavailable } from "@latchkey/core/internal";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, NEW_PASSWORD, signIn, resetToken, reset } from "./reset-races-fixture.ts";

/** The run's store with a password write that fails once, inside transactions too. */
function failingPasswordWrite(store: FullStore, compensate: boolean): FullStore & { failures: number } {
  const failing = (accounts: AccountStore): AccountStore => ({
    listByUser: (userId) => accounts.listByUser(userId),
    create: (account) => accounts.create(account),
    setPasswordIfAbsent: (userId, account) => accounts.setPasswordIfAbsent(userId, account),
    deleteAllExcept: (userId, keep) => accounts.deleteAllExcept(userId, keep),
    async upsertPassword(userId, account) {
      if (wrapped.failures === 0) {
        wrapped.failures++;
        throw databaseUnavailable(new Error("password write lost"));
      }
      return accounts.upsertPassword(userId, account);
    },
  });
  // Plain objects (the sqlite and postgres runs hand out proxies, which compensation's spreads would lose).
  const users = store.users;
  const sessions = store.sessions;
  const ports: FullStorePorts = {
    ...store,
    users: {
      create: (user, accounts) => users.create(user, accounts),
      findById: (id) => users.findById(id),
      findByEmail: (email) => users.findByEmail(email),
      findByUsername: (username) => users.findByUsername(username),
      update: (id, patch) => users.update(id, patch),
      delete: (id) => users.delete(id),
      listUnverifiedBefore: (before, limit) => users.listUnverifiedBefore(before, limit),
      listPage: (query) => users.listPage(query),
      count: (search) => users.count(search),
    },
    sessions: {
      create: (session) => sessions.create(session),
      findByTokenHash: (tokenHash) => sessions.findByTokenHash(tokenHash),
      touch: (id, expiresAt, updatedAt) => sessions.touch(id, expiresAt, updatedAt),
      delete: (id) => sessions.delete(id),
      deleteByUser: (userId, exceptId) => sessions.deleteByUser(userId, exceptId),
      deleteImpersonatedBy: (adminId) => sessions.deleteImpersonatedBy(adminId),
      deleteExpired: (now, limit) => sessions.deleteExpired(now, limit),
      listByUser: (userId) => sessions.listByUser(userId),
    },
    accounts: failing(store.accounts),
  };
  const transaction: FullStore["transaction"] = compensate
    ? compensatingTransaction(ports, {
        session: (id) => store.sessions.delete(id),
        account: async () => undefined,
        passkey: async () => undefined,
        // A reset creates no user: nothing to take back.
        user: async () => undefined,
      })
    : (body) => store.transaction((tx) => body({ ...tx, accounts: failing(tx.accounts) }));
  const wrapped: FullStore & { failures: number } = { ...store, ...ports, transaction, failures: 0 };
  return wrapped;
}

describe("a password reset that fails half-way (review fix 30.12)", () => {
  it("on a compensating store (D1, standalone MongoDB) no attacker session survives, and the same link finishes the reset", async () => {
    const base = createTestAuth();
    const store = failingPasswordWrite(base.store, true);
    const t = createTestAuth({ store });
    const { userId } = await t.signUp("ada@example.com");
    const attacker = (await (await signIn(t, PASSWORD)).json()).credentials.token as string;
    const token = await resetToken(t);
    const failed = await reset(t, token);
    expect(failed.status).toBe(503);
    expect(store.failures).toBe(1);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(attacker) })).json()).toBeNull();
    // The link was not spent by the failed attempt: the retry finishes the reset.
    expect((await reset(t, token)).status).toBe(200);
    expect((await signIn(t, PASSWORD)).status).toBe(401);
    expect((await signIn(t, NEW_PASSWORD)).status).toBe(200);
    expect(await t.store.verifications.findByIdentifier(`password-reset:${userId}`)).toBeNull();
  });

  it("on a transactional store the failed attempt changes nothing and the same link finishes the reset", async () => {
    const base = createTestAuth();
    const store = failingPasswordWrite(base.store, false);
    const t = createTestAuth({ store });
    await t.signUp("ada@example.com");
    const attacker = (await (await signIn(t, PASSWORD)).json()).credentials.token as string;
    const token = await resetToken(t);
    expect((await reset(t, token)).status).toBe(503);
    expect((await reset(t, token)).status).toBe(200);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(attacker) })).json()).toBeNull();
    expect((await signIn(t, NEW_PASSWORD)).status).toBe(200);
  });
});
