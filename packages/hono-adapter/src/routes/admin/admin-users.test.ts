import { describe, expect, it } from "vitest";
import { admin } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, email, setup } from "./admin-fixture.ts";

// A counter for this file's search tags (the fixture keeps its own for emails).
let n = 0;

describe("admin()", () => {
  it("lists and searches users a page at a time, with the total", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const tag = `zq${Date.now().toString(36)}${n++}`;
    for (const [local, name] of [
      ["c", "Grace"],
      ["a", "grace hopper"],
      ["b", "Ada"],
    ])
      await s.t.signUp(`${tag}${local}@example.com`, PASSWORD, { name: `${tag} ${name}` });
    const page = async (query: string) => {
      const res = await s.call("GET", `/admin/list-users?${query}`, boss.token);
      expect(res.status, JSON.stringify(await s.json(res.clone()))).toBe(200);
      return (await s.json(res)) as {
        users: Array<{ email: string; name: string }>;
        total: number | null;
        totalExact: boolean | null;
        nextCursor: string | null;
      };
    };
    const first = await page(`searchValue=${tag.toUpperCase()}&limit=2`);
    expect(first.users.map((u) => u.email)).toEqual([`${tag}a@example.com`, `${tag}b@example.com`]);
    expect(first.total).toBe(3);
    const rest = await page(`searchValue=${tag}&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(rest).toMatchObject({ users: [{ email: `${tag}c@example.com` }], total: null, nextCursor: null });
    const byName = await page(`searchField=name&searchValue=${tag}%20GRACE`);
    expect(byName.users.map((u) => u.name)).toEqual([`${tag} Grace`, `${tag} grace hopper`]);
    expect(byName.total).toBe(2);
    const newest = await page("limit=1");
    expect(newest.users).toHaveLength(1);
    expect(newest.total).toBeGreaterThanOrEqual(4);
    expect(newest.totalExact).toBe(true);
    const bad = await s.call("GET", "/admin/list-users?limit=500", boss.token);
    expect(bad.status).toBe(400);
  });

  it("counts the first page's total no further than listUsersCountLimit, and says when it stopped", async () => {
    const base = setup();
    const boss = await base.user("boss", "admin");
    const tag = `zc${Date.now().toString(36)}${n++}`;
    for (const local of ["a", "b", "c"]) await base.t.signUp(`${tag}${local}@example.com`, PASSWORD);
    const t = createTestAuth({ store: base.t.store, plugins: [admin({ listUsersCountLimit: 2 })] });
    const list = async (query: string) => {
      const res = await t.request("GET", `/admin/list-users?${query}`, { headers: bearer(boss.token) });
      expect(res.status).toBe(200);
      return (await res.json()) as { users: unknown[]; total: number | null; totalExact: boolean | null };
    };
    // Three match, the limit is two: "2+", and the page itself is whole.
    expect(await list(`searchValue=${tag}&limit=5`)).toMatchObject({ total: 2, totalExact: false });
    expect((await list(`searchValue=${tag}&limit=5`)).users).toHaveLength(3);
    // Exactly at the limit is exact; under it too.
    expect(await list(`searchValue=${tag}a&limit=5`)).toMatchObject({ total: 1, totalExact: true });
    await base.t.store.users.delete((await base.t.store.users.findByEmail(`${tag}c@example.com`))!.id);
    expect(await list(`searchValue=${tag}&limit=5`)).toMatchObject({ total: 2, totalExact: true });
    // The pages after the first carry neither.
    const next = await list(`searchValue=${tag}&limit=1`);
    const cursor = (next as unknown as { nextCursor: string }).nextCursor;
    expect(await list(`searchValue=${tag}&limit=1&cursor=${encodeURIComponent(cursor)}`)).toMatchObject({
      total: null,
      totalExact: null,
    });
    expect(() => admin({ listUsersCountLimit: 0 })).toThrow(/admin\.listUsersCountLimit/);
    // false: always counted in full.
    const full = createTestAuth({ store: base.t.store, plugins: [admin({ listUsersCountLimit: false })] });
    const all = await full.request("GET", "/admin/list-users?limit=1", { headers: bearer(boss.token) });
    const body = (await all.json()) as { total: number; totalExact: boolean };
    expect(body.totalExact).toBe(true);
    expect(body.total).toBe(await base.t.store.users.count(null));
  });

  it("get-user, create-user with a role, set-role, revoke-user-sessions and remove-user change the store", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const created = await s.call("POST", "/admin/create-user", boss.token, {
      email: email("made"),
      password: PASSWORD,
      name: "Made",
      role: "support",
    });
    expect(created.status).toBe(200);
    const made = (await s.json(created)).user as { id: string; email: string };
    expect((await s.t.store.users.findById(made.id))?.appMetadata).toEqual({ role: "support" });
    expect(await s.t.store.sessions.listByUser(made.id)).toEqual([]);
    await s.signIn(made.email);
    const detail = await s.call("GET", `/admin/get-user?userId=${made.id}`, boss.token);
    expect(await s.json(detail)).toMatchObject({
      user: { id: made.id, banned: false },
      sessions: [{ userId: made.id }],
      accounts: [{ providerId: "credential" }],
      apiKeys: [],
    });
    const role = await s.call("POST", "/admin/set-role", boss.token, { userId: made.id, role: ["support", "billing"] });
    expect((await s.json(role)).user).toMatchObject({ appMetadata: { role: ["support", "billing"] } });
    expect(s.events.find((e) => e.type === "UserRoleChanged")).toMatchObject({ userId: made.id, actorId: boss.userId });
    const badRole = await s.call("POST", "/admin/set-role", boss.token, { userId: made.id, role: "a b" });
    expect(badRole.status).toBe(400);
    expect((await s.t.store.users.findById(made.id))?.appMetadata.role).toEqual(["support", "billing"]);
    const revoked = await s.call("POST", "/admin/revoke-user-sessions", boss.token, { userId: made.id });
    expect(await s.json(revoked)).toEqual({ success: true, count: 1 });
    expect(await s.t.store.sessions.listByUser(made.id)).toEqual([]);
    expect((await s.call("POST", "/admin/remove-user", boss.token, { userId: made.id })).status).toBe(200);
    expect(await s.t.store.users.findById(made.id)).toBeNull();
    expect((await s.call("POST", "/admin/remove-user", boss.token, { userId: boss.userId })).status).toBe(403);
  });
});
