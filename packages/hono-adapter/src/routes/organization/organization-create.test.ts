import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { bearer } from "../../../test/test-auth.ts";
import { setup } from "./organization-fixture.ts";

describe("organizations over HTTP: create, list, get, set active, tokens", () => {
  it("create makes the caller owner and the organization active; slugs are unique; JWTs carry org_id and org_role", async () => {
    const s = await setup();
    const ada = await s.person("ada");
    const res = await s.post(
      "/organization/create",
      { name: "Acme", slug: "acme", metadata: { plan: "team" } },
      ada.token,
    );
    expect(res.status).toBe(200);
    const created = await s.json<{ id: string; slug: string }>(res);
    expect(created).toMatchObject({ name: "Acme", slug: "acme", logo: null, metadata: { plan: "team" } });
    expect(await s.memberOf(created.id, ada.userId)).toMatchObject({ role: "owner" });
    const taken = await s.post("/organization/create", { name: "Other", slug: "acme" }, ada.token);
    expect(taken.status).toBe(409);
    expect((await s.json(taken)).code).toBe("ORGANIZATION_SLUG_TAKEN");
    expect((await s.t.store.organizations.listByUser(ada.userId)).map((m) => m.organization.id)).toEqual([created.id]);
    const bad = await s.post("/organization/create", { name: "Bad", slug: "Not A Slug" }, ada.token);
    expect(bad.status).toBe(400);
    // The new organization is the session's active one: the session, the token claims.
    const session = await s.json<{ session: { activeOrganizationId?: string } }>(
      await s.get("/get-session", ada.token),
    );
    expect(session.session.activeOrganizationId).toBe(created.id);
    const token = await s.json<{ token: string }>(await s.post("/token", {}, ada.token));
    const claims = await s.t.auth.api.verifyJwt(token.token);
    expect(claims).toMatchObject({ org_id: created.id, org_role: "owner" });
    const list = await s.json<Array<{ id: string; role: string }>>(await s.get("/organization/list", ada.token));
    expect(list).toMatchObject([{ id: created.id, role: "owner", slug: "acme" }]);
    expect(s.events.filter((e) => e.type === "OrganizationCreated")).toMatchObject([
      { userId: ada.userId, organizationId: created.id, slug: "acme" },
    ]);
    const audit = await s.t.store.audit.list({ userId: ada.userId, limit: 50, cursor: null });
    expect(audit.items.map((r) => r.type)).toEqual(
      expect.arrayContaining(["OrganizationCreated", "MemberAdded", "ActiveOrganizationChanged"]),
    );
  });

  it("a removed member's next token carries no organization claims, and the active organization no longer reads", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const member = await s.person("member");
    const org = await s.org({ owner, member });
    expect((await s.post("/organization/set-active", { organizationId: org.id }, member.token)).status).toBe(200);
    const before = await s.t.auth.api.verifyJwt(
      (await s.json<{ token: string }>(await s.post("/token", {}, member.token))).token,
    );
    expect(before).toMatchObject({ org_id: org.id, org_role: "member" });
    await s.post(
      "/organization/remove-member",
      { organizationId: org.id, memberIdOrEmail: member.userId },
      owner.token,
    );
    const after = await s.t.auth.api.verifyJwt(
      (await s.json<{ token: string }>(await s.post("/token", {}, member.token))).token,
    );
    expect(after.org_id).toBeUndefined();
    expect(after.org_role).toBeUndefined();
    expect((await s.get("/organization/get-full-organization", member.token)).status).toBe(404);
    expect((await s.post("/organization/set-active", { organizationId: org.id }, member.token)).status).toBe(404);
  });

  it("get-full-organization lists members and pending invitations; by slug too", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const member = await s.person("member");
    const org = await s.org({ owner, member });
    await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: "zed@example.com", role: "admin" },
      owner.token,
    );
    const full = await s.json<{
      members: Array<{ userId: string; role: string; user: { email: string } }>;
      invitations: Array<{ email: string; status: string }>;
    }>(await s.get(`/organization/get-full-organization?organizationSlug=${org.slug}`, member.token));
    expect(full.members.map((m) => [m.userId, m.role]).sort((a, b) => (a[1]! < b[1]! ? 1 : -1))).toEqual([
      [owner.userId, "owner"],
      [member.userId, "member"],
    ]);
    expect(full.members.find((m) => m.userId === member.userId)!.user.email).toBe(member.email);
    expect(full.invitations).toMatchObject([{ email: "zed@example.com", status: "pending" }]);
  });

  it("allowUserToCreate and the beforeOrganizationCreated hook may refuse; nothing is written", async () => {
    const closed = await setup({ allowUserToCreate: (user) => user.email.startsWith("boss") });
    const ada = await closed.person("ada");
    const boss = await closed.person("boss");
    const refused = await closed.post("/organization/create", { name: "A", slug: "a-1" }, ada.token);
    expect(refused.status).toBe(403);
    expect((await closed.json(refused)).code).toBe("ORGANIZATION_CREATION_DISABLED");
    expect(await closed.t.store.organizations.findBySlug("a-1")).toBeNull();
    expect((await closed.post("/organization/create", { name: "B", slug: "b-1" }, boss.token)).status).toBe(200);
    const hooked = await setup({
      hooks: {
        beforeOrganizationCreated: (draft) =>
          draft.slug.startsWith("bad") ? false : { name: draft.name.toUpperCase() },
      },
    });
    const bea = await hooked.person("bea");
    expect((await hooked.post("/organization/create", { name: "x", slug: "bad-1" }, bea.token)).status).toBe(403);
    expect(await hooked.t.store.organizations.findBySlug("bad-1")).toBeNull();
    const ok = await hooked.json(
      await hooked.post("/organization/create", { name: "good", slug: "good-1" }, bea.token),
    );
    expect(ok.name).toBe("GOOD");
  });

  it("auth.requireOrganization guards the app's own routes by the active organization and the role's statements", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const member = await s.person("member");
    const org = await s.org({ owner, member });
    const app = new Hono();
    app.get("/projects", s.t.auth.requireOrganization(), (c) => c.json(c.var.organization));
    app.post("/members", s.t.auth.requireOrganization({ permissions: { member: ["delete"] } }), (c) =>
      c.json(c.var.organization),
    );
    const call = (method: string, path: string, token?: string) =>
      app.request(path, { method, headers: token ? bearer(token) : {} });
    expect((await call("GET", "/projects")).status).toBe(401);
    expect((await call("GET", "/projects", member.token)).status).toBe(404);
    await s.post("/organization/set-active", { organizationId: org.id }, member.token);
    await s.post("/organization/set-active", { organizationId: org.id }, owner.token);
    expect(await (await call("GET", "/projects", member.token)).json()).toEqual({ id: org.id, role: "member" });
    expect((await call("POST", "/members", member.token)).status).toBe(403);
    expect(await (await call("POST", "/members", owner.token)).json()).toEqual({ id: org.id, role: "owner" });
    // A change of role counts at once: the middleware reads the membership on every request.
    await s.t.store.organizations.updateMemberRole(org.id, member.userId, "admin");
    expect((await call("POST", "/members", member.token)).status).toBe(200);
    expect(() => s.t.auth.requireOrganization({ permissions: { member: "delete" } as never })).toThrow();
  });
});
