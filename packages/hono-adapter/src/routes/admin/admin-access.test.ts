import { describe, expect, it } from "vitest";
import { ADMIN_PLUGIN_ID, admin } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, email, setup } from "./admin-fixture.ts";

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
});
