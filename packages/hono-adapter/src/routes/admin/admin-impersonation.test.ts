import { describe, expect, it } from "vitest";
import { cookieHeaders } from "../../../test/test-auth.ts";
import { PASSWORD, type Json, setup } from "./admin-fixture.ts";

describe("admin()", () => {
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
