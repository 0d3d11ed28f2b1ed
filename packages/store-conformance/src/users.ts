import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, apiKey, at, session, T0, uid, user, verification } from "./fixtures.ts";

/** Conformance of the `users` port; registered by `runStoreConformance`. */
export function describeUsers(getStore: () => Store): void {
  describe("users", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

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

    it("stores appMetadata apart from metadata: each patch replaces only its own object", async () => {
      const u = user();
      await store.users.create(u, []);
      const r = await store.users.update(u.id, { appMetadata: { role: "admin" }, updatedAt: at(1000) });
      expect(r).toEqual({ ok: true, value: { ...u, appMetadata: { role: "admin" }, updatedAt: at(1000) } });
      await store.users.update(u.id, { metadata: { role: "admin-by-the-user" } });
      const read = await store.users.findById(u.id);
      expect(read?.appMetadata).toEqual({ role: "admin" });
      expect(read?.metadata).toEqual({ role: "admin-by-the-user" });
      expect((await store.users.findByEmail(u.email))?.appMetadata).toEqual({ role: "admin" });
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
      const v = verification({ userId: u.id });
      await store.verifications.issue(v);
      // The plugin ports' rows take part when the store has those ports.
      const { apiKeys, audit } = store;
      const k = apiKey(u.id);
      await apiKeys?.create(k);
      await audit?.append({
        id: uid("au"),
        type: "UserSignedUp",
        userId: u.id,
        identifier: u.email,
        ip: null,
        userAgent: null,
        at: T0,
        data: {},
      });
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await store.users.findById(u.id)).toBeNull();
      expect(await store.users.findByEmail(u.email)).toBeNull();
      expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
      expect(await store.accounts.listByUser(u.id)).toEqual([]);
      expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
      if (apiKeys) expect(await apiKeys.findByHash(k.keyHash)).toBeNull();
      if (apiKeys) expect(await apiKeys.findByHashWithOwner(k.keyHash)).toBeNull();
      if (audit) expect((await audit.list({ userId: u.id, limit: 10, cursor: null })).items).toHaveLength(1);
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

    it("listUnverifiedBefore lists unverified users created before the cut-off, oldest first, at most `limit`", async () => {
      const ancient = Date.UTC(2001, 0, 1);
      const made = (ms: number, emailVerified: boolean) => user({ createdAt: new Date(ancient + ms), emailVerified });
      const oldest = made(0, false);
      const older = made(1000, false);
      const verified = made(500, true);
      const recent = made(10_000, false);
      for (const u of [recent, verified, older, oldest]) expect((await store.users.create(u, [])).ok).toBe(true);
      const cutOff = new Date(ancient + 5000);
      expect((await store.users.listUnverifiedBefore(cutOff, 10)).map((u) => u.id)).toEqual([oldest.id, older.id]);
      expect(await store.users.listUnverifiedBefore(cutOff, 1)).toEqual([oldest]);
    });

    it("round-trips a ban and lifts it (banned, banReason, banExpires)", async () => {
      const u = user();
      await store.users.create(u, []);
      const until = at(86_400_000);
      const banned = await store.users.update(u.id, { banned: true, banReason: "spam", banExpires: until });
      expect(banned).toEqual({ ok: true, value: { ...u, banned: true, banReason: "spam", banExpires: until } });
      expect(await store.users.findById(u.id)).toEqual({ ...u, banned: true, banReason: "spam", banExpires: until });
      await store.users.update(u.id, { banned: false, banReason: null, banExpires: null });
      expect(await store.users.findById(u.id)).toEqual(u);
    });

    it("listPage without a search: newest first (createdAt, then id), page by page with the cursor", async () => {
      // Far in the future: these come before every other test's users.
      const future = Date.UTC(2200, 0, 1);
      const made = [0, 1000, 1000, 2000, 3000].map((ms) => user({ createdAt: new Date(future + ms) }));
      for (const u of made) expect((await store.users.create(u, [])).ok).toBe(true);
      const byTime = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
        b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1);
      const expected = [...made].sort(byTime).map((u) => u.id);
      const first = await store.users.listPage({ search: null, limit: 2, cursor: null });
      expect(first.items.map((u) => u.id)).toEqual(expected.slice(0, 2));
      expect(first.items[0]).toEqual(made.find((u) => u.id === expected[0]));
      const second = await store.users.listPage({ search: null, limit: 2, cursor: first.nextCursor });
      expect(second.items.map((u) => u.id)).toEqual(expected.slice(2, 4));
      const third = await store.users.listPage({ search: null, limit: 1, cursor: second.nextCursor });
      expect(third.items.map((u) => u.id)).toEqual(expected.slice(4, 5));
      expect(await store.users.count(null)).toBeGreaterThanOrEqual(made.length);
      // A cursor that is not one of this listing's: an empty page, never an error.
      expect(await store.users.listPage({ search: null, limit: 2, cursor: "nonsense" })).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it("listPage with an email or name prefix: only those, in that field's order, counted", async () => {
      const tag = uid("srch").toLowerCase();
      const mk = (local: string, name: string | null) => user({ email: `${tag}${local}@example.com`, name });
      const users = [mk("b", "Zed Alpha"), mk("a", "zed beta"), mk("c", null), mk("ab", "Other")];
      for (const u of users) expect((await store.users.create(u, [])).ok).toBe(true);
      const byEmail = { field: "email" as const, prefix: tag };
      const page1 = await store.users.listPage({ search: byEmail, limit: 3, cursor: null });
      expect(page1.items.map((u) => u.email)).toEqual(
        [`${tag}a@`, `${tag}ab@`, `${tag}b@`].map((e) => `${e}example.com`),
      );
      const page2 = await store.users.listPage({ search: byEmail, limit: 3, cursor: page1.nextCursor });
      expect(page2).toEqual({ items: [users[2]], nextCursor: null });
      expect(await store.users.count(byEmail)).toBe(4);
      expect(await store.users.count({ field: "email", prefix: `${tag}a` })).toBe(2);
      // Counted no further than `atMost` (the admin list's capped total), with or without a search.
      expect(await store.users.count(byEmail, 3)).toBe(3);
      expect(await store.users.count(byEmail, 4)).toBe(4);
      expect(await store.users.count(byEmail, 10)).toBe(4);
      expect(await store.users.count(null, 2)).toBe(2);
      // Names compared lower-cased; users without a name are not in a name search. A unique name prefix:
      const named = [user({ name: `${tag} Zed` }), user({ name: `${tag.toUpperCase()} ada` }), user({ name: null })];
      for (const u of named) expect((await store.users.create(u, [])).ok).toBe(true);
      const byName = { field: "name" as const, prefix: tag };
      const names = await store.users.listPage({ search: byName, limit: 10, cursor: null });
      expect(names.items.map((u) => u.id)).toEqual([named[1]!.id, named[0]!.id]);
      expect(await store.users.count(byName)).toBe(2);
      // A wildcard is a character like any other.
      expect(await store.users.count({ field: "email", prefix: `${tag}%` })).toBe(0);
      expect(await store.users.count({ field: "email", prefix: `${tag}_` })).toBe(0);
      // The cursor of one listing means nothing to another.
      const cross = await store.users.listPage({ search: byName, limit: 1, cursor: page1.nextCursor });
      expect(cross).toEqual({ items: [], nextCursor: null });
    });
  });
}
