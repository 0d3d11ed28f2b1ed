import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, apiKey, at, session, T0, uid, user, verification } from "./fixtures.ts";
import { describeRoundTrips } from "./round-trip.ts";

export interface ConformanceOptions {
  /** Shown in test names, e.g. "memory", "postgres", "libsql". */
  name: string;
  /** A fresh or shared store; every test uses unique ids and emails, so one store may serve the whole suite. */
  createStore: () => Promise<Store> | Store;
  /** When set, the suite is skipped and the reason printed (e.g. no MONGODB_URL). */
  skip?: string | false;
}

/**
 * The suite every store runs: each port method, atomicity under parallel calls, and cascades.
 *
 * @example
 * import { runStoreConformance } from "@latchkey/store-conformance";
 * runStoreConformance({ name: "memory", createStore: () => memoryStore() });
 */
export function runStoreConformance(options: ConformanceOptions): void {
  const suite = options.skip ? describe.skip : describe;
  if (options.skip) console.warn(`[store-conformance] ${options.name}: SKIPPED (${options.skip})`);
  suite(`store conformance: ${options.name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await options.createStore();
    });
    afterAll(async () => {
      await store?.close();
    });

    describe("users", () => {
      it("creates a user with accounts and finds it by id, email and username", async () => {
        const u = user({ username: uid("name").toLowerCase() });
        const created = await store.users.create(u, [account(u.id)]);
        expect(created).toEqual({ ok: true, value: u });
        expect(await store.users.findById(u.id)).toEqual(u);
        expect(await store.users.findByEmail(u.email)).toEqual(u);
        expect(await store.users.findByUsername(u.username!)).toEqual(u);
        expect(await store.users.findById(uid("missing"))).toBeNull();
        expect(await store.users.findByEmail("nobody@example.com")).toBeNull();
        const accounts = await store.accounts.listByUser(u.id);
        expect(accounts).toHaveLength(1);
        expect(accounts[0]!.providerId).toBe("credential");
      });

      it("rejects a duplicate email or username and writes nothing (accounts included)", async () => {
        const u = user({ username: uid("dup").toLowerCase() });
        await store.users.create(u, []);
        const sameEmail = user({ email: u.email });
        expect(await store.users.create(sameEmail, [account(sameEmail.id)])).toEqual({ ok: false, conflict: "email" });
        expect(await store.users.findById(sameEmail.id)).toBeNull();
        expect(await store.accounts.listByUser(sameEmail.id)).toEqual([]);
        const sameName = user({ username: u.username });
        expect(await store.users.create(sameName, [])).toEqual({ ok: false, conflict: "username" });
        expect(await store.users.findById(sameName.id)).toBeNull();
      });

      it("20 parallel creates of one email: exactly one wins", async () => {
        const email = `${uid("race")}@example.com`;
        const results = await Promise.all(Array.from({ length: 20 }, () => store.users.create(user({ email }), [])));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.conflict === "email")).toHaveLength(19);
      });

      it("20 parallel username claims: exactly one wins", async () => {
        const name = uid("claim").toLowerCase();
        const users = Array.from({ length: 20 }, () => user());
        for (const u of users) await store.users.create(u, []);
        const results = await Promise.all(users.map((u) => store.users.update(u.id, { username: name })));
        expect(results.filter((r) => r?.ok)).toHaveLength(1);
        expect(results.filter((r) => r && !r.ok && r.conflict === "username")).toHaveLength(19);
      });

      it("updates fields, keeps omitted ones, clears with null, and enforces uniqueness", async () => {
        const u = user({ image: "https://img.example/a.png" });
        await store.users.create(u, []);
        const r = await store.users.update(u.id, { name: null, metadata: {}, updatedAt: at(1000) });
        expect(r).toEqual({ ok: true, value: { ...u, name: null, metadata: {}, updatedAt: at(1000) } });
        const other = user();
        await store.users.create(other, []);
        expect(await store.users.update(u.id, { email: other.email })).toEqual({ ok: false, conflict: "email" });
        expect((await store.users.findById(u.id))!.email).toBe(u.email);
        const moved = await store.users.update(u.id, { email: `${uid("new")}@example.com`, emailVerified: true });
        expect(moved?.ok && moved.value.emailVerified).toBe(true);
        expect(await store.users.findByEmail(u.email)).toBeNull();
        expect(await store.users.update(uid("missing"), { name: "x" })).toBeNull();
      });

      it("delete removes the user and every auth-owned row, but not audit rows", async () => {
        const u = user();
        await store.users.create(u, [account(u.id)]);
        const s = session(u.id);
        await store.sessions.create(s);
        const k = apiKey(u.id);
        await store.apiKeys.create(k);
        const v = verification({ userId: u.id });
        await store.verifications.issue(v);
        await store.audit.append({ id: uid("au"), type: "UserSignedUp", userId: u.id, identifier: u.email, ip: null, userAgent: null, at: T0, data: {} });
        expect(await store.users.delete(u.id)).toBe(true);
        expect(await store.users.findById(u.id)).toBeNull();
        expect(await store.users.findByEmail(u.email)).toBeNull();
        expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
        expect(await store.accounts.listByUser(u.id)).toEqual([]);
        expect(await store.apiKeys.findByHash(k.keyHash)).toBeNull();
        expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
        expect((await store.audit.list({ userId: u.id, limit: 10, cursor: null })).items).toHaveLength(1);
        expect(await store.users.delete(u.id)).toBe(false);
        // The email is free again.
        expect((await store.users.create(user({ email: u.email }), [])).ok).toBe(true);
      });

      it("10 parallel deletes of one user: exactly one reports true", async () => {
        const u = user();
        await store.users.create(u, [account(u.id)]);
        const results = await Promise.all(Array.from({ length: 10 }, () => store.users.delete(u.id)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("sessions", () => {
      it("stores, finds by token hash with the user, touches and deletes", async () => {
        const u = user();
        await store.users.create(u, []);
        const s = session(u.id);
        await store.sessions.create(s);
        expect(await store.sessions.findByTokenHash(s.tokenHash)).toEqual({ session: s, user: u });
        await store.sessions.touch(s.id, at(999_000), at(5000));
        expect((await store.sessions.findByTokenHash(s.tokenHash))!.session).toEqual({ ...s, expiresAt: at(999_000), updatedAt: at(5000) });
        expect(await store.sessions.delete(s.id)).toBe(true);
        expect(await store.sessions.delete(s.id)).toBe(false);
        expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
      });

      it("deletes all of a user's sessions except one, and expired ones", async () => {
        const u = user();
        await store.users.create(u, []);
        const keep = session(u.id);
        const others = [session(u.id), session(u.id)];
        const expired = session(u.id, { expiresAt: at(-1) });
        for (const s of [keep, ...others, expired]) await store.sessions.create(s);
        expect(await store.sessions.deleteByUser(u.id, keep.id)).toBe(3);
        expect(await store.sessions.findByTokenHash(keep.tokenHash)).not.toBeNull();
        const old = session(u.id, { expiresAt: at(-1) });
        await store.sessions.create(old);
        expect(await store.sessions.deleteExpired(T0)).toBeGreaterThanOrEqual(1);
        expect(await store.sessions.findByTokenHash(old.tokenHash)).toBeNull();
        expect(await store.sessions.findByTokenHash(keep.tokenHash)).not.toBeNull();
        expect(await store.sessions.deleteByUser(u.id)).toBe(1);
      });
    });

    describe("accounts", () => {
      it("creates, upserts the password, sets it only when absent, and prunes other providers", async () => {
        const u = user();
        await store.users.create(u, [account(u.id, { providerId: "EMAIL_OTP", passwordHash: null })]);
        expect(await store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: "h1" }))).toBe(true);
        expect(await store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: "h2" }))).toBe(false);
        let list = await store.accounts.listByUser(u.id);
        expect(list.find((a) => a.providerId === "credential")!.passwordHash).toBe("h1");
        await store.accounts.upsertPassword(u.id, account(u.id, { passwordHash: "h3" }));
        list = await store.accounts.listByUser(u.id);
        expect(list.filter((a) => a.providerId === "credential")).toHaveLength(1);
        expect(list.find((a) => a.providerId === "credential")!.passwordHash).toBe("h3");
        await store.accounts.create(account(u.id, { providerId: "github", passwordHash: null }));
        expect(await store.accounts.deleteAllExcept(u.id, "EMAIL_OTP")).toBe(2);
        list = await store.accounts.listByUser(u.id);
        expect(list.map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
      });

      it("upsertPassword creates the credential account when missing", async () => {
        const u = user();
        await store.users.create(u, []);
        await store.accounts.upsertPassword(u.id, account(u.id, { passwordHash: "h" }));
        expect((await store.accounts.listByUser(u.id)).map((a) => a.passwordHash)).toEqual(["h"]);
      });

      it("10 parallel setPasswordIfAbsent: exactly one wins", async () => {
        const u = user();
        await store.users.create(u, []);
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: `h${i}` }))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.accounts.listByUser(u.id)).filter((a) => a.providerId === "credential")).toHaveLength(1);
      });
    });

    describe("verifications", () => {
      it("issue rotates: the earlier row for the identifier is gone", async () => {
        const first = verification();
        await store.verifications.issue(first);
        const second = verification({ identifier: first.identifier });
        await store.verifications.issue(second);
        expect(await store.verifications.findByIdentifier(first.identifier)).toEqual(second);
        expect(await store.verifications.findByValueHash(first.valueHash)).toBeNull();
        expect(await store.verifications.findByValueHash(second.valueHash)).toEqual(second);
      });

      it("20 parallel consumes of one row: exactly one wins", async () => {
        const v = verification();
        await store.verifications.issue(v);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.verifications.consume(v.id)));
        expect(results.filter((r) => r !== null)).toEqual([v]);
        expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
      });

      it("failed attempts increment atomically and destroy the row at the maximum", async () => {
        const v = verification();
        await store.verifications.issue(v);
        expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 1, destroyed: false });
        expect((await store.verifications.findByIdentifier(v.identifier))!.attemptCount).toBe(1);
        expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 2, destroyed: false });
        expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 3, destroyed: true });
        expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
        expect(await store.verifications.recordFailedAttempt(v.id, 3)).toBeNull();
      });

      it("20 parallel failed attempts with max 50 count exactly 20", async () => {
        const v = verification();
        await store.verifications.issue(v);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.verifications.recordFailedAttempt(v.id, 50)));
        expect(results.map((r) => r!.attemptCount).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
        expect((await store.verifications.findByIdentifier(v.identifier))!.attemptCount).toBe(20);
      });

      it("10 parallel failed attempts with max 3: the row is destroyed exactly once", async () => {
        const v = verification();
        await store.verifications.issue(v);
        const results = await Promise.all(Array.from({ length: 10 }, () => store.verifications.recordFailedAttempt(v.id, 3)));
        expect(results.filter((r) => r?.destroyed)).toHaveLength(1);
        expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
      });

      it("deletes by identifier and expired rows", async () => {
        const v = verification();
        await store.verifications.issue(v);
        expect(await store.verifications.deleteByIdentifier(v.identifier)).toBe(1);
        const old = verification({ expiresAt: at(-1000) });
        const live = verification();
        await store.verifications.issue(old);
        await store.verifications.issue(live);
        expect(await store.verifications.deleteExpired(T0)).toBeGreaterThanOrEqual(1);
        expect(await store.verifications.findByIdentifier(old.identifier)).toBeNull();
        expect(await store.verifications.findByIdentifier(live.identifier)).toEqual(live);
      });

      it("keeps userId and payload", async () => {
        const v = verification({ userId: uid("u"), payload: "new@example.com" });
        await store.verifications.issue(v);
        expect(await store.verifications.findByIdentifier(v.identifier)).toEqual(v);
      });
    });

    describe("counters", () => {
      it("counts within a window and restarts after it", async () => {
        const key = uid("c");
        const now = T0.getTime();
        expect(await store.counters.peek(key, now)).toBeNull();
        expect(await store.counters.hit(key, 60_000, now)).toEqual({ count: 1, resetAt: now + 60_000 });
        expect(await store.counters.hit(key, 60_000, now + 1000)).toEqual({ count: 2, resetAt: now + 60_000 });
        expect(await store.counters.peek(key, now + 2000)).toEqual({ count: 2, resetAt: now + 60_000 });
        expect(await store.counters.peek(key, now + 60_000)).toBeNull();
        expect(await store.counters.hit(key, 60_000, now + 60_000)).toEqual({ count: 1, resetAt: now + 120_000 });
      });

      it("50 parallel hits give exactly 1..50", async () => {
        const key = uid("c");
        const now = T0.getTime();
        const results = await Promise.all(Array.from({ length: 50 }, () => store.counters.hit(key, 60_000, now)));
        expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        expect((await store.counters.peek(key, now))!.count).toBe(50);
      });

      it("deletes and renames", async () => {
        const from = uid("c");
        const to = uid("c");
        const now = T0.getTime();
        await store.counters.hit(from, 60_000, now);
        await store.counters.hit(from, 60_000, now);
        await store.counters.hit(to, 60_000, now);
        await store.counters.rename(from, to);
        expect(await store.counters.peek(from, now)).toBeNull();
        expect(await store.counters.peek(to, now)).toEqual({ count: 2, resetAt: now + 60_000 });
        await store.counters.rename(uid("absent"), to);
        expect(await store.counters.peek(to, now)).toBeNull();
        await store.counters.hit(to, 60_000, now);
        await store.counters.delete(to);
        expect(await store.counters.peek(to, now)).toBeNull();
      });
    });

    describe("api keys", () => {
      async function owner() {
        const u = user();
        await store.users.create(u, []);
        return u;
      }

      it("creates, finds by hash and id, updates and deletes only for the owner", async () => {
        const u = await owner();
        const k = apiKey(u.id, { expiresAt: at(60_000) });
        await store.apiKeys.create(k);
        expect(await store.apiKeys.findByHash(k.keyHash)).toEqual(k);
        expect(await store.apiKeys.findById(k.id)).toEqual(k);
        expect(await store.apiKeys.update(k.id, uid("other"), { name: "x" })).toBeNull();
        const updated = await store.apiKeys.update(k.id, u.id, { name: "renamed", enabled: false, metadata: {}, permissions: { a: ["b"] }, updatedAt: at(1) });
        expect(updated).toEqual({ ...k, name: "renamed", enabled: false, metadata: {}, permissions: { a: ["b"] }, updatedAt: at(1) });
        expect(await store.apiKeys.update(k.id, null, { remaining: 5 })).toMatchObject({ remaining: 5 });
        expect(await store.apiKeys.delete(k.id, uid("other"))).toBeNull();
        expect((await store.apiKeys.delete(k.id, u.id))?.id).toBe(k.id);
        expect(await store.apiKeys.findByHash(k.keyHash)).toBeNull();
        expect(await store.apiKeys.delete(k.id, null)).toBeNull();
      });

      it("lists newest first with keyset pagination", async () => {
        const u = await owner();
        const keys = Array.from({ length: 5 }, (_, i) => apiKey(u.id, { createdAt: at(i * 1000) }));
        for (const k of keys) await store.apiKeys.create(k);
        const first = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: null });
        expect(first.items.map((k) => k.id)).toEqual([keys[4]!.id, keys[3]!.id]);
        expect(first.nextCursor).not.toBeNull();
        const second = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: first.nextCursor });
        expect(second.items.map((k) => k.id)).toEqual([keys[2]!.id, keys[1]!.id]);
        const third = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: second.nextCursor });
        expect(third.items.map((k) => k.id)).toEqual([keys[0]!.id]);
        expect(third.nextCursor).toBeNull();
      });

      it("sweeps expired keys of one user or of all users", async () => {
        const a = await owner();
        const b = await owner();
        const ea = apiKey(a.id, { expiresAt: at(-1) });
        const eb = apiKey(b.id, { expiresAt: at(-1) });
        const live = apiKey(a.id, { expiresAt: at(60_000) });
        const eternal = apiKey(a.id, { expiresAt: null });
        const boundary = apiKey(b.id, { expiresAt: T0 });
        for (const k of [ea, eb, live, eternal, boundary]) await store.apiKeys.create(k);
        expect(await store.apiKeys.deleteExpired(T0, a.id)).toEqual([{ id: ea.id, userId: a.id }]);
        expect(await store.apiKeys.findById(eb.id)).not.toBeNull();
        const swept = await store.apiKeys.deleteExpired(T0, null);
        // Other tests share the store, so only this test's keys are checked: expiresAt === now counts as expired.
        expect(swept).toEqual(expect.arrayContaining([{ id: eb.id, userId: b.id }, { id: boundary.id, userId: b.id }]));
        expect(swept.map((k) => k.id)).not.toContain(ea.id);
        expect(await store.apiKeys.findById(eb.id)).toBeNull();
        expect(await store.apiKeys.findByHash(boundary.keyHash)).toBeNull();
        expect(await store.apiKeys.findById(live.id)).not.toBeNull();
        expect(await store.apiKeys.findById(eternal.id)).not.toBeNull();
        expect(await store.apiKeys.deleteExpired(T0, a.id)).toEqual([]);
      });

      it("lists only the owner's keys; a page past the end is empty", async () => {
        const a = await owner();
        const b = await owner();
        const mine = apiKey(a.id);
        await store.apiKeys.create(mine);
        await store.apiKeys.create(apiKey(b.id));
        const page = await store.apiKeys.listByUser(a.id, { limit: 10, cursor: null });
        expect(page).toEqual({ items: [mine], nextCursor: null });
        expect((await store.apiKeys.listByUser(uid("nobody"), { limit: 10, cursor: null })).items).toEqual([]);
      });

      it("consumeUse refusal precedence: disabled, then expired, then used up, then rate limited", async () => {
        const u = await owner();
        const all = apiKey(u.id, { enabled: false, expiresAt: at(-1), remaining: 0, rateLimitMax: 1, rateLimitWindowMs: 60_000, requestCount: 1, windowStart: T0 });
        const expiredUsed = apiKey(u.id, { expiresAt: T0, remaining: 0, rateLimitMax: 1, rateLimitWindowMs: 60_000, requestCount: 1, windowStart: T0 });
        const usedLimited = apiKey(u.id, { remaining: 0, rateLimitMax: 1, rateLimitWindowMs: 60_000, requestCount: 1, windowStart: T0 });
        for (const k of [all, expiredUsed, usedLimited]) await store.apiKeys.create(k);
        expect(await store.apiKeys.consumeUse(all.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
        // expiresAt === now is already expired.
        expect(await store.apiKeys.consumeUse(expiredUsed.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
        expect(await store.apiKeys.consumeUse(usedLimited.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
      });

      it("a refused use changes nothing, and RATE_LIMITED carries the window so the caller can say when to retry", async () => {
        const u = await owner();
        const k = apiKey(u.id, { remaining: 10, rateLimitMax: 2, rateLimitWindowMs: 60_000 });
        await store.apiKeys.create(k);
        expect((await store.apiKeys.consumeUse(k.id, T0)).ok).toBe(true);
        expect((await store.apiKeys.consumeUse(k.id, at(1_000))).ok).toBe(true);
        const before = await store.apiKeys.findById(k.id);
        expect(before).toMatchObject({ remaining: 8, requestCount: 2, windowStart: T0, lastUsedAt: at(1_000) });
        const refused = await store.apiKeys.consumeUse(k.id, at(2_000));
        expect(refused).toMatchObject({ ok: false, reason: "RATE_LIMITED", key: { id: k.id, windowStart: T0, rateLimitWindowMs: 60_000 } });
        expect(await store.apiKeys.findById(k.id)).toEqual(before);
        const disabled = apiKey(u.id, { enabled: false, remaining: 3 });
        await store.apiKeys.create(disabled);
        await store.apiKeys.consumeUse(disabled.id, T0);
        expect(await store.apiKeys.findById(disabled.id)).toEqual(disabled);
      });

      it("updating name or permissions keeps the use counters (a patch never resets a window)", async () => {
        const u = await owner();
        const k = apiKey(u.id, { remaining: 5, rateLimitMax: 3, rateLimitWindowMs: 60_000 });
        await store.apiKeys.create(k);
        await store.apiKeys.consumeUse(k.id, T0);
        const updated = await store.apiKeys.update(k.id, u.id, { name: "new", permissions: {}, updatedAt: at(1) });
        expect(updated).toMatchObject({ name: "new", remaining: 4, requestCount: 1, windowStart: T0, lastUsedAt: T0 });
      });

      it("a disabled key under 10 parallel uses admits none and keeps its quota", async () => {
        const u = await owner();
        const k = apiKey(u.id, { enabled: false, remaining: 5 });
        await store.apiKeys.create(k);
        const results = await Promise.all(Array.from({ length: 10 }, () => store.apiKeys.consumeUse(k.id, T0)));
        expect(results.every((r) => !r.ok && r.reason === "KEY_DISABLED")).toBe(true);
        expect((await store.apiKeys.findById(k.id))!.remaining).toBe(5);
      });

      it("consumeUse refuses disabled, expired, used-up and unknown keys", async () => {
        const u = await owner();
        const disabled = apiKey(u.id, { enabled: false });
        const expired = apiKey(u.id, { expiresAt: at(-1) });
        const used = apiKey(u.id, { remaining: 0 });
        for (const k of [disabled, expired, used]) await store.apiKeys.create(k);
        expect(await store.apiKeys.consumeUse(disabled.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
        expect(await store.apiKeys.consumeUse(expired.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
        expect(await store.apiKeys.consumeUse(used.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
        expect(await store.apiKeys.consumeUse(uid("k"), T0)).toEqual({ ok: false, reason: "NOT_FOUND", key: null });
      });

      it("consumeUse decrements remaining and records the use", async () => {
        const u = await owner();
        const k = apiKey(u.id, { remaining: 2 });
        await store.apiKeys.create(k);
        const r = await store.apiKeys.consumeUse(k.id, at(5));
        expect(r).toMatchObject({ ok: true, key: { remaining: 1, lastUsedAt: at(5) } });
        expect((await store.apiKeys.findById(k.id))!.remaining).toBe(1);
      });

      it("a key with remaining 1 under 10 parallel uses validates exactly once", async () => {
        const u = await owner();
        const k = apiKey(u.id, { remaining: 1 });
        await store.apiKeys.create(k);
        const results = await Promise.all(Array.from({ length: 10 }, () => store.apiKeys.consumeUse(k.id, T0)));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.reason === "USAGE_EXCEEDED")).toHaveLength(9);
        expect((await store.apiKeys.findById(k.id))!.remaining).toBe(0);
      });

      it("a per-key limit of 5 per window under 20 parallel uses admits exactly 5, then a new window admits again", async () => {
        const u = await owner();
        const k = apiKey(u.id, { rateLimitMax: 5, rateLimitWindowMs: 60_000 });
        await store.apiKeys.create(k);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.apiKeys.consumeUse(k.id, T0)));
        expect(results.filter((r) => r.ok)).toHaveLength(5);
        expect(results.filter((r) => !r.ok && r.reason === "RATE_LIMITED")).toHaveLength(15);
        expect(await store.apiKeys.consumeUse(k.id, at(30_000))).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
        expect(await store.apiKeys.consumeUse(k.id, at(60_000))).toMatchObject({ ok: true, key: { requestCount: 1, windowStart: at(60_000) } });
      });

      it("quota and window together: 20 parallel uses of remaining 3, limit 5 admit exactly 3", async () => {
        const u = await owner();
        const k = apiKey(u.id, { remaining: 3, rateLimitMax: 5, rateLimitWindowMs: 60_000 });
        await store.apiKeys.create(k);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.apiKeys.consumeUse(k.id, T0)));
        expect(results.filter((r) => r.ok)).toHaveLength(3);
        expect(await store.apiKeys.findById(k.id)).toMatchObject({ remaining: 0, requestCount: 3 });
      });
    });

    describe("jwks", () => {
      it("inserts one key per generation, even under 10 parallel inserts", async () => {
        const before = (await store.jwks.list()).length;
        const generation = 1_000_000 + Math.floor(Math.random() * 1_000_000);
        const make = () => ({ id: uid("jwk"), generation, alg: "EdDSA", publicKey: "{}", privateKey: "{}", createdAt: T0, retiredAt: null });
        const results = await Promise.all(Array.from({ length: 10 }, () => store.jwks.insert(make())));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.jwks.list()).length).toBe(before + 1);
      });

      it("retires older keys and deletes those retired long enough", async () => {
        const base = 2_000_000 + Math.floor(Math.random() * 1_000_000);
        const old = { id: uid("jwk"), generation: base, alg: "EdDSA", publicKey: '{"kty":"OKP"}', privateKey: "enc", createdAt: T0, retiredAt: null };
        const current = { ...old, id: uid("jwk"), generation: base + 1, createdAt: at(1000) };
        await store.jwks.insert(old);
        await store.jwks.insert(current);
        await store.jwks.retireOthers(current.id, at(2000));
        const list = await store.jwks.list();
        expect(list.find((k) => k.id === old.id)!.retiredAt).toEqual(at(2000));
        expect(list.find((k) => k.id === current.id)).toEqual(current);
        const gens = list.map((k) => k.generation);
        expect(gens).toEqual([...gens].sort((a, b) => a - b));
        expect(await store.jwks.deleteRetiredBefore(at(3000))).toBeGreaterThanOrEqual(1);
        const after = await store.jwks.list();
        expect(after.find((k) => k.id === old.id)).toBeUndefined();
        expect(after.find((k) => k.id === current.id)).toEqual(current);
      });

      it("keeps the first retirement time of keys already retired (a later rotation does not restart their grace)", async () => {
        const base = 3_000_000 + Math.floor(Math.random() * 1_000_000);
        const first = { id: uid("jwk"), generation: base, alg: "EdDSA", publicKey: '{"kty":"OKP"}', privateKey: "enc", createdAt: T0, retiredAt: null };
        const second = { ...first, id: uid("jwk"), generation: base + 1, createdAt: at(1000) };
        const third = { ...first, id: uid("jwk"), generation: base + 2, createdAt: at(4000) };
        await store.jwks.insert(first);
        await store.jwks.insert(second);
        await store.jwks.retireOthers(second.id, at(2000));
        await store.jwks.insert(third);
        await store.jwks.retireOthers(third.id, at(5000));
        const list = await store.jwks.list();
        expect(list.find((k) => k.id === first.id)!.retiredAt).toEqual(at(2000));
        expect(list.find((k) => k.id === second.id)!.retiredAt).toEqual(at(5000));
        expect(list.find((k) => k.id === third.id)!.retiredAt).toBeNull();
        await store.jwks.deleteRetiredBefore(at(3000));
        expect((await store.jwks.list()).filter((k) => [first.id, second.id, third.id].includes(k.id)).map((k) => k.id)).toEqual([second.id, third.id]);
      });
    });

    describeRoundTrips(() => store);

    describe("audit", () => {
      it("appends and lists newest first with keyset pagination, filtered by user", async () => {
        const userId = uid("u");
        const rows = Array.from({ length: 3 }, (_, i) => ({ id: uid("au"), type: "UserSignedIn", userId, identifier: null, ip: "198.51.100.1", userAgent: "ua", at: at(i * 1000), data: { method: "password", i } }));
        for (const r of rows) await store.audit.append(r);
        await store.audit.append({ ...rows[0]!, id: uid("au"), userId: uid("other") });
        const first = await store.audit.list({ userId, limit: 2, cursor: null });
        expect(first.items).toEqual([rows[2], rows[1]]);
        const second = await store.audit.list({ userId, limit: 2, cursor: first.nextCursor });
        expect(second.items).toEqual([rows[0]]);
        expect(second.nextCursor).toBeNull();
        expect((await store.audit.list({ userId: null, limit: 100, cursor: null })).items.length).toBeGreaterThanOrEqual(4);
      });
    });
  });
}
