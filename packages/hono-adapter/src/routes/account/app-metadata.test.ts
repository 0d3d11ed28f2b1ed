import { describe, expect, it } from "vitest";
import { jwt } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts } from "../../../test/routes/jwt/test-fixtures.ts";

// Review fix 5: `PATCH /user` lets a user replace their own `metadata`, while the docs built `role:
// user.metadata.role` into JWTs: any user could make themselves admin in an app that followed them. Roles now live
// in server-only `appMetadata`: in the user view and the JWT payload builder's input, written only by
// `auth.api.updateUser` (and `auth.api.createUser`); naming it over HTTP is 400 `SERVER_ONLY_PROPERTY`.
// Runs on memory, libSQL and PostgreSQL (per project).

const roleFromAppMetadata = () =>
  jwt({ payloadBuilder: ({ user }) => ({ role: (user.appMetadata.role as string | undefined) ?? "member" }) });

const jwtRole = async (t: ReturnType<typeof createTestAuth>, token: string) => {
  const res = await t.request("POST", "/token", { headers: bearer(token) });
  return decodeParts(((await res.json()) as { token: string }).token).payload.role;
};

describe("server-only appMetadata", () => {
  it("a user cannot make themselves admin: PATCH /user with appMetadata is 400 SERVER_ONLY_PROPERTY and writes nothing", async () => {
    const t = createTestAuth({ plugins: [roleFromAppMetadata()] });
    const { token, userId } = await t.signUp("mallory@example.com");
    const res = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: { name: "Mallory", appMetadata: { role: "admin" } },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    const stored = await t.store.users.findById(userId);
    expect(stored?.appMetadata).toEqual({});
    expect(stored?.name).toBeNull(); // the whole request changed nothing
    expect(await jwtRole(t, token)).toBe("member");
  });

  it("a role written into the user-controlled metadata never reaches the appMetadata the JWT reads", async () => {
    const t = createTestAuth({ plugins: [roleFromAppMetadata()] });
    const { token, userId } = await t.signUp("mallory@example.com");
    const res = await t.request("PATCH", "/user", { headers: bearer(token), body: { metadata: { role: "admin" } } });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { metadata: object; appMetadata: object } };
    expect(user).toMatchObject({ metadata: { role: "admin" }, appMetadata: {} });
    expect((await t.store.users.findById(userId))?.appMetadata).toEqual({});
    expect(await jwtRole(t, token)).toBe("member");
  });

  it("a sign-up naming appMetadata is 400 SERVER_ONLY_PROPERTY and creates no user", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "mallory@example.com", password: "mallory password", appMetadata: { role: "admin" } },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    expect(await t.store.users.findByEmail("mallory@example.com")).toBeNull();
  });

  it("server code sets it with auth.api.updateUser: the user view and the JWT carry it, and the user's own PATCH keeps it", async () => {
    const t = createTestAuth({ plugins: [roleFromAppMetadata()] });
    const { token, userId } = await t.signUp("ada@example.com");
    const view = await t.auth.api.updateUser(userId, { appMetadata: { role: "admin", plan: "pro" } });
    expect(view.appMetadata).toEqual({ role: "admin", plan: "pro" });
    expect((await t.store.users.findById(userId))?.appMetadata).toEqual({ role: "admin", plan: "pro" });
    const session = await t.request("GET", "/get-session", { headers: bearer(token) });
    expect(((await session.json()) as { user: { appMetadata: object } }).user.appMetadata).toEqual({
      role: "admin",
      plan: "pro",
    });
    expect(await jwtRole(t, token)).toBe("admin");
    await t.request("PATCH", "/user", { headers: bearer(token), body: { metadata: {}, name: "Ada" } });
    expect((await t.store.users.findById(userId))?.appMetadata).toEqual({ role: "admin", plan: "pro" });
    // And a trusted createUser may set it from the start.
    const created = await t.auth.api.createUser({
      email: "grace@example.com",
      password: "grace password 1",
      appMetadata: { role: "support" },
    });
    expect((await t.store.users.findById(created.id))?.appMetadata).toEqual({ role: "support" });
  });
});
