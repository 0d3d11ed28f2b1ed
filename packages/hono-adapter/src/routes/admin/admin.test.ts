import { describe, expect, it } from "vitest";
import { ADMIN_PLUGIN_ID, admin, apiKeys, emailOtp, magicLink, twoFactor, type AuthEvent } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
let n = 0;
const email = (what: string) => `${what}.${Date.now().toString(36)}.${n++}@example.com`;
type Json = Record<string, unknown>;

function setup() {
  const t = createTestAuth({ plugins: [admin(), apiKeys(), emailOtp(), magicLink(), twoFactor()] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const json = async (res: Response) => (await res.json()) as Json;
  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    t.request(method, path, { body, headers: token ? bearer(token) : {} });
  /** A signed-up user, made an admin by role when `role` is given. */
  async function user(what: string, role?: string) {
    const address = email(what);
    const { token, userId } = await t.signUp(address, PASSWORD);
    if (role) await t.auth.api.updateUser(userId, { appMetadata: { role } });
    return { email: address, token, userId };
  }
  const signIn = (address: string) =>
    t.request("POST", "/sign-in/email", { body: { email: address, password: PASSWORD } });
  return { t, events, json, call, user, signIn };
}

/** Every admin route, with a body that passes validation (the target may not exist: then 404, never 403). */
const ADMIN_ROUTES: Array<[string, string, (userId: string) => unknown]> = [
  ["GET", "/admin/list-users", () => undefined],
  ["GET", "/admin/get-user?userId=nobody", () => undefined],
  ["POST", "/admin/create-user", () => ({ email: email("made"), password: PASSWORD })],
  ["POST", "/admin/set-role", (userId) => ({ userId, role: "member" })],
  ["POST", "/admin/ban-user", (userId) => ({ userId, banExpiresIn: 60 })],
  ["POST", "/admin/unban-user", (userId) => ({ userId })],
  ["POST", "/admin/revoke-user-sessions", (userId) => ({ userId })],
  ["POST", "/admin/remove-user", () => ({ userId: "nobody" })],
  ["POST", "/admin/impersonate-user", () => ({ userId: "nobody" })],
];

describe("admin()", () => {
  it("every admin route: 401 signed out, 403 for a user, an impersonation or a self-written role; an admin passes", async () => {
    const s = setup();
    const plain = await s.user("plain");
    // A role the user wrote into their own metadata is no authority: only server-written appMetadata is.
    const patched = await s.t.request("PATCH", "/user", {
      body: { metadata: { role: "admin" } },
      headers: bearer(plain.token),
    });
    expect(patched.status).toBe(200);
    const boss = await s.user("boss", "admin");
    const target = await s.user("target");
    const byId = createTestAuth({ plugins: [admin({ adminUserIds: ["placeholder"] })] });
    expect(byId.auth.core.plugins.get(ADMIN_PLUGIN_ID)?.options.adminUserIds).toEqual(["placeholder"]);
    for (const [method, path, body] of ADMIN_ROUTES) {
      const anonymous = await s.call(method, path, null, body(target.userId));
      expect(anonymous.status, `${path} signed out`).toBe(401);
      const forbidden = await s.call(method, path, plain.token, body(target.userId));
      expect(forbidden.status, `${path} as a user`).toBe(403);
      expect((await s.json(forbidden)).code).toBe("INSUFFICIENT_PERMISSIONS");
      const allowed = await s.call(method, path, boss.token, body(target.userId));
      expect(allowed.status, `${path} as an admin: ${JSON.stringify(await s.json(allowed.clone()))}`).not.toBe(403);
      expect([200, 404]).toContain(allowed.status);
    }
    // Nothing the refused calls asked for happened: the target is not banned, still there.
    const after = (await s.t.store.users.findById(target.userId))!;
    expect(after.appMetadata.role).toBe("member");
  });

  it("adminUserIds makes an admin whatever the role", async () => {
    const base = setup();
    const first = await base.user("first");
    const t = createTestAuth({ store: base.t.store, plugins: [admin({ adminUserIds: [first.userId] })] });
    const res = await t.request("GET", "/admin/list-users?limit=1", { headers: bearer(first.token) });
    expect(res.status).toBe(200);
  });

  it("a ban ends every session, disables every key, refuses every sign-in (403 USER_BANNED with the end) and issues no code or link", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const victim = await s.user("victim");
    const second = (await s.json(await s.signIn(victim.email))) as { credentials: { token: string } };
    const key = await s.call("POST", "/api-key/create", victim.token, { name: "ci" });
    expect(key.status).toBe(200);
    const { key: value, apiKey } = (await s.json(key)) as { key: string; apiKey: { id: string } };
    const keyId = apiKey.id;
    expect((await s.t.store.sessions.listByUser(victim.userId)).length).toBe(2);

    const banned = await s.call("POST", "/admin/ban-user", boss.token, {
      userId: victim.userId,
      banReason: "spam",
      banExpiresIn: 3600,
    });
    expect(banned.status).toBe(200);
    const { user } = (await s.json(banned)) as { user: Json };
    const until = new Date(s.t.clock.now() + 3_600_000).toISOString();
    expect(user).toMatchObject({ id: victim.userId, banned: true, banReason: "spam", banExpires: until });
    // In the store: the flag, no session, the key disabled.
    expect(await s.t.store.users.findById(victim.userId)).toMatchObject({ banned: true, banReason: "spam" });
    expect(await s.t.store.sessions.listByUser(victim.userId)).toEqual([]);
    expect((await s.t.store.apiKeys.findById(keyId))?.enabled).toBe(false);
    for (const token of [victim.token, second.credentials.token])
      expect(await s.json(await s.call("GET", "/get-session", token))).toBeNull();
    const verify = await s.t.request("POST", "/api-key/verify", { body: { key: value } });
    expect((await s.json(verify)).error).toMatchObject({ code: "KEY_DISABLED" });

    // Every way in: 403 USER_BANNED with the end date, and no session.
    const refused = await s.signIn(victim.email);
    expect(refused.status).toBe(403);
    expect(await s.json(refused)).toMatchObject({ code: "USER_BANNED", details: { until } });
    expect(await s.t.store.sessions.listByUser(victim.userId)).toEqual([]);
    // No code, no link: the sends answer as for anyone, and nothing is stored or mailed.
    const mailed = s.t.emails.sent.length;
    for (const [path, body] of [
      ["/email-otp/send-verification-otp", { email: victim.email, purpose: "sign-in" }],
      ["/sign-in/magic-link", { email: victim.email }],
      ["/request-password-reset", { email: victim.email }],
    ] as const)
      expect((await s.t.request("POST", path, { body })).status, path).toBe(200);
    await s.t.settle();
    expect(s.t.emails.sent.length).toBe(mailed);
    expect(s.events.filter((e) => e.type === "OtpGenerated")).toEqual([]);
    expect(s.events.find((e) => e.type === "UserBanned")).toMatchObject({
      userId: victim.userId,
      actorId: boss.userId,
      reason: "spam",
      keysDisabled: 1,
    });

    // The ban ends by itself at its end date; unbanning ends it at once.
    s.t.clock.advance(3_600_000);
    expect((await s.signIn(victim.email)).status).toBe(200);
    await s.call("POST", "/admin/ban-user", boss.token, { userId: victim.userId });
    expect(await s.json(await s.signIn(victim.email))).toMatchObject({ code: "USER_BANNED", details: { until: null } });
    const lifted = await s.call("POST", "/admin/unban-user", boss.token, { userId: victim.userId });
    expect((await s.json(lifted)).user).toMatchObject({ banned: false, banReason: null, banExpires: null });
    expect((await s.signIn(victim.email)).status).toBe(200);
    // The keys the ban disabled stay disabled.
    expect((await s.t.store.apiKeys.findById(keyId))?.enabled).toBe(false);
  });

  it("never bans, removes or impersonates an admin", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const other = await s.user("other", "admin");
    const ban = await s.call("POST", "/admin/ban-user", boss.token, { userId: other.userId });
    expect(await s.json(ban)).toMatchObject({ code: "CANNOT_BAN_ADMIN" });
    expect(ban.status).toBe(403);
    expect((await s.call("POST", "/admin/remove-user", boss.token, { userId: other.userId })).status).toBe(403);
    const imp = await s.call("POST", "/admin/impersonate-user", boss.token, { userId: other.userId });
    expect(await s.json(imp)).toMatchObject({ code: "IMPERSONATION_NOT_ALLOWED" });
    expect(await s.t.store.users.findById(other.userId)).toMatchObject({ banned: false });
  });

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

  it("impersonation: a short session marked impersonatedBy that cannot touch credentials, ended by stop-impersonating", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const ada = await s.user("ada");
    const started = await s.t.request("POST", "/admin/impersonate-user", {
      body: { userId: ada.userId },
      headers: cookieHeaders(boss.token),
    });
    expect(started.status).toBe(200);
    const cookies = started.headers.getSetCookie();
    const token = /__Host-latchkey\.session=([^;]+)/.exec(cookies.join("\n"))?.[1];
    expect(token).toBeTruthy();
    expect(cookies.some((c) => c.startsWith(`__Host-latchkey.admin_session=${boss.token};`))).toBe(true);
    const body = (await s.json(started)) as { session: Json };
    expect(body.session).toMatchObject({ userId: ada.userId, impersonatedBy: boss.userId });
    const stored = (await s.t.store.sessions.listByUser(ada.userId)).find((x) => x.impersonatedBy !== null)!;
    expect(stored.impersonatedBy).toBe(boss.userId);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(3_600_000);

    const as = cookieHeaders(token!);
    const me = await s.t.request("GET", "/get-session", { headers: as });
    expect(await s.json(me)).toMatchObject({ user: { id: ada.userId }, session: { impersonatedBy: boss.userId } });
    // Never the user's credentials or account, never admin powers.
    for (const [method, path, payload] of [
      ["POST", "/change-password", { currentPassword: PASSWORD, newPassword: "another password 1" }],
      ["POST", "/two-factor/enable", { password: PASSWORD }],
      ["POST", "/delete-account", { password: PASSWORD }],
      // Where the user is signed in, and who they are to the app, are theirs too (decision 0080).
      ["POST", "/revoke-other-sessions", undefined],
      ["POST", "/revoke-sessions", undefined],
      ["POST", "/revoke-session", { sessionId: "any" }],
      ["PATCH", "/user", { name: "Not Ada" }],
    ] as const) {
      const res = await s.t.request(method, path, { body: payload, headers: as });
      expect(res.status, path).toBe(403);
      expect((await s.json(res)).code, path).toBe("IMPERSONATION_NOT_ALLOWED");
    }
    expect(await s.t.store.twoFactor.find(ada.userId)).toBeNull();
    expect((await s.t.store.users.findById(ada.userId))?.name).not.toBe("Not Ada");
    expect(
      await s.json(await s.t.request("GET", "/get-session", { headers: cookieHeaders(ada.token) })),
    ).not.toBeNull();
    expect((await s.t.request("GET", "/admin/list-users", { headers: as })).status).toBe(403);

    const stop = await s.t.request("POST", "/admin/stop-impersonating", {
      headers: { ...as, cookie: `${as.cookie}; __Host-latchkey.admin_session=${boss.token}` },
    });
    expect(stop.status).toBe(200);
    expect(await s.json(stop)).toMatchObject({ user: { id: boss.userId } });
    expect(stop.headers.getSetCookie().some((c) => c.startsWith(`__Host-latchkey.session=${boss.token};`))).toBe(true);
    expect(await s.json(await s.t.request("GET", "/get-session", { headers: as }))).toBeNull();
    expect((await s.t.store.sessions.listByUser(ada.userId)).some((x) => x.impersonatedBy !== null)).toBe(false);
    expect(s.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["ImpersonationStarted", "ImpersonationStopped"]),
    );
    // A session that is not an impersonation has nothing to stop.
    expect((await s.call("POST", "/admin/stop-impersonating", ada.token)).status).toBe(400);
  });

  it("an impersonation session ends at its time, and a banned user cannot be impersonated", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const ada = await s.user("ada");
    const res = await s.call("POST", "/admin/impersonate-user", boss.token, { userId: ada.userId });
    const { credentials } = (await s.json(res)) as { credentials: { token: string } };
    s.t.clock.advance(3_600_000);
    expect(await s.json(await s.call("GET", "/get-session", credentials.token))).toBeNull();
    await s.call("POST", "/admin/ban-user", boss.token, { userId: ada.userId });
    const refused = await s.call("POST", "/admin/impersonate-user", boss.token, { userId: ada.userId });
    expect(refused.status).toBe(403);
    expect((await s.json(refused)).code).toBe("USER_BANNED");
    expect(await s.t.store.sessions.listByUser(ada.userId)).toEqual([]);
  });

  it("an impersonation ends when its admin loses the authority: demoted, their role rewritten, or removed", async () => {
    const s = setup();
    const ada = await s.user("ada");
    const bob = await s.user("bob");
    const root = await s.user("root", "admin");
    /** An impersonation of ada by `admin`; its token, and the stored session's id. */
    const impersonate = async (admin: { token: string }) => {
      const res = await s.call("POST", "/admin/impersonate-user", admin.token, { userId: ada.userId });
      expect(res.status).toBe(200);
      return ((await s.json(res)) as { credentials: { token: string } }).credentials.token;
    };
    const live = async (token: string) => (await s.json(await s.call("GET", "/get-session", token))) !== null;
    const impersonations = async () =>
      (await s.t.store.sessions.listByUser(ada.userId)).filter((x) => x.impersonatedBy !== null).length;

    // Demoted through the admin API: the impersonation it started ends; another admin's does not.
    const boss = await s.user("boss", "admin");
    const ended = await impersonate(boss);
    const kept = await impersonate(root);
    expect((await s.call("POST", "/admin/set-role", root.token, { userId: boss.userId, role: "member" })).status).toBe(
      200,
    );
    expect(await live(ended)).toBe(false);
    expect(await live(kept)).toBe(true);
    expect(await impersonations()).toBe(1);
    const stopped = s.events.filter((e) => e.type === "ImpersonationStopped");
    expect(stopped).toEqual([expect.objectContaining({ userId: ada.userId, actorId: boss.userId })]);
    // A demoted admin cannot start one again (403), and leaves nothing behind.
    expect((await s.call("POST", "/admin/impersonate-user", boss.token, { userId: ada.userId })).status).toBe(403);
    expect(await impersonations()).toBe(1);

    // The role rewritten by the server (`auth.api.updateUser`): the same.
    const ops = await s.user("ops", "admin");
    const second = await impersonate(ops);
    await s.t.auth.api.updateUser(ops.userId, { appMetadata: { role: "support" } });
    expect(await live(second)).toBe(false);
    // Other server-written data changing leaves a still-admin's impersonation alone.
    const third = await impersonate(root);
    await s.t.auth.api.updateUser(root.userId, { appMetadata: { role: "admin", team: "blue" } });
    expect(await live(third)).toBe(true);

    // The admin's account deleted: its impersonations are not cascaded with it (they are other users' rows).
    const gone = await s.user("gone", "admin");
    const fourth = await impersonate(gone);
    const removed = await s.call("POST", "/delete-account", gone.token, { password: PASSWORD });
    expect(removed.status, JSON.stringify(await s.json(removed.clone()))).toBe(200);
    expect(await s.t.store.users.findById(gone.userId)).toBeNull();
    expect(await live(fourth)).toBe(false);
    expect(await live(kept)).toBe(true);
    expect(await live(bob.token)).toBe(true);
  });
});
