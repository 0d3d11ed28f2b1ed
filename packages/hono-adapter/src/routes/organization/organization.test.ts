import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import {
  auditLog,
  DEFAULT_ROLES,
  jwt,
  organizations,
  ORGANIZATIONS_PLUGIN_ID,
  type AuthEvent,
  type OrganizationsOptions,
  type Permissions,
} from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

type Actor = "owner" | "admin" | "member" | "outsider" | "signed-out";
const ACTORS: Actor[] = ["owner", "admin", "member", "outsider", "signed-out"];

async function setup(options: OrganizationsOptions = {}) {
  const t = createTestAuth({ plugins: [organizations(options), jwt(), auditLog()] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const post = (path: string, body: unknown, token?: string) =>
    t.request("POST", path, { body, headers: token ? bearer(token) : {} });
  const get = (path: string, token?: string) => t.request("GET", path, { headers: token ? bearer(token) : {} });
  const json = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T;
  let n = 0;
  /** A signed-up user whose email is verified (an invitee must have proven the address). */
  async function person(name: string) {
    const email = `${name}-${n++}@example.com`;
    const who = await t.signUp(email);
    await t.store.users.update(who.userId, { emailVerified: true });
    return { ...who, email };
  }
  /** A new organization: `owner` owns it, `admin` and `member` hold those roles. */
  async function org(people: { owner: { userId: string }; admin?: { userId: string }; member?: { userId: string } }) {
    const slug = `org-${n++}`;
    const created = await t.auth.api.createOrganization({ userId: people.owner.userId, name: "Acme", slug });
    for (const role of ["admin", "member"] as const) {
      const who = people[role];
      if (who) await t.auth.api.addMember({ userId: who.userId, organizationId: created.id, role });
    }
    return created;
  }
  const memberOf = (organizationId: string, userId: string) => t.store.organizations.findMember(organizationId, userId);
  const service = t.auth.core.plugins.get(ORGANIZATIONS_PLUGIN_ID)!.service;
  return { t, events, post, get, json, person, org, memberOf, service };
}

type Setup = Awaited<ReturnType<typeof setup>>;
type People = Record<"owner" | "admin" | "member" | "outsider", Awaited<ReturnType<Setup["person"]>>>;

/**
 * One route of the matrix: what it needs (a statement, any membership, or only a session), how to call it for an
 * organization, and what it changed in the store (true: the change happened).
 */
interface RouteCase {
  route: string;
  needs: { statement: Permissions } | "member" | "session";
  /** An answer other than the needs' for one actor (the sole owner cannot leave). */
  except?: Partial<Record<Actor, number>>;
  /** A read: nothing to change in the store. */
  reads?: true;
  call(s: Setup, org: { id: string }, people: People, token: string | undefined): Promise<Response>;
  changed(s: Setup, org: { id: string }, people: People, actor: Actor): Promise<boolean>;
}

const ROUTES: RouteCase[] = [
  {
    route: "/organization/update",
    needs: { statement: { organization: ["update"] } },
    call: (s, org, _p, token) =>
      s.post("/organization/update", { organizationId: org.id, data: { name: "Changed" } }, token),
    changed: async (s, org) => (await s.t.store.organizations.findById(org.id))?.name === "Changed",
  },
  {
    route: "/organization/delete",
    needs: { statement: { organization: ["delete"] } },
    call: (s, org, _p, token) => s.post("/organization/delete", { organizationId: org.id }, token),
    changed: async (s, org) =>
      (await s.t.store.organizations.findById(org.id)) === null &&
      (await s.t.store.organizations.listMembers(org.id)).length === 0,
  },
  {
    route: "/organization/get-full-organization",
    reads: true,
    needs: "member",
    call: (s, org, _p, token) => s.get(`/organization/get-full-organization?organizationId=${org.id}`, token),
    changed: async () => false,
  },
  {
    route: "/organization/list-invitations",
    reads: true,
    needs: "member",
    call: (s, org, _p, token) => s.get(`/organization/list-invitations?organizationId=${org.id}`, token),
    changed: async () => false,
  },
  {
    route: "/organization/set-active",
    needs: "member",
    call: (s, org, _p, token) => s.post("/organization/set-active", { organizationId: org.id }, token),
    changed: async (s, org, people) => {
      const sessions = await Promise.all(Object.values(people).map((p) => s.t.store.sessions.listByUser(p.userId)));
      return sessions.flat().some((session) => session.activeOrganizationId === org.id);
    },
  },
  {
    route: "/organization/invite-member",
    needs: { statement: { invitation: ["create"] } },
    call: (s, org, _p, token) =>
      s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: "new@example.com", role: "member" },
        token,
      ),
    changed: async (s, org) => (await s.t.store.organizations.listInvitations(org.id)).length > 0,
  },
  {
    route: "/organization/cancel-invitation",
    needs: { statement: { invitation: ["cancel"] } },
    call: async (s, org, people, token) => {
      const owner = (await s.t.store.users.findById(people.owner.userId))!;
      const invitation = await s.service.invite(
        owner,
        { organizationId: org.id, email: "pending@example.com", role: "member" },
        { ip: null, userAgent: null },
      );
      return s.post("/organization/cancel-invitation", { invitationId: invitation.id }, token);
    },
    changed: async (s, org) =>
      (await s.t.store.organizations.listInvitations(org.id)).some((i) => i.status === "canceled"),
  },
  {
    route: "/organization/update-member-role",
    needs: { statement: { member: ["update"] } },
    call: (s, org, people, token) =>
      s.post(
        "/organization/update-member-role",
        { organizationId: org.id, memberId: people.member.userId, role: "admin" },
        token,
      ),
    changed: async (s, org, people) => (await s.memberOf(org.id, people.member.userId))?.role === "admin",
  },
  {
    route: "/organization/remove-member",
    needs: { statement: { member: ["delete"] } },
    call: (s, org, people, token) =>
      s.post("/organization/remove-member", { organizationId: org.id, memberIdOrEmail: people.member.email }, token),
    changed: async (s, org, people) => (await s.memberOf(org.id, people.member.userId)) === null,
  },
  {
    route: "/organization/leave",
    needs: "member",
    // The organization's only owner: the last-owner rule.
    except: { owner: 409 },
    call: (s, org, _p, token) => s.post("/organization/leave", { organizationId: org.id }, token),
    changed: async (s, org, people, actor) =>
      actor !== "outsider" && actor !== "signed-out" && (await s.memberOf(org.id, people[actor].userId)) === null,
  },
  {
    route: "/organization/create",
    needs: "session",
    call: (s, _org, _p, token) =>
      s.post("/organization/create", { name: "New", slug: `new-${Math.random().toString(36).slice(2, 10)}` }, token),
    changed: async (s, _org, people, actor) =>
      actor !== "signed-out" &&
      (await s.t.store.organizations.listByUser(people[actor].userId)).some((m) => m.organization.name === "New"),
  },
  {
    route: "/organization/list",
    reads: true,
    needs: "session",
    call: (s, _org, _p, token) => s.get("/organization/list", token),
    changed: async () => false,
  },
  {
    route: "/organization/has-permission",
    reads: true,
    needs: "session",
    call: (s, org, _p, token) =>
      s.post("/organization/has-permission", { organizationId: org.id, permissions: { member: ["update"] } }, token),
    changed: async () => false,
  },
];

/** What the role definitions say `actor` gets from `route`: the status, and whether the write happens. */
function expected(route: RouteCase, actor: Actor): { status: number; writes: boolean } {
  const writes = (status: number) => ({ status, writes: status === 200 });
  if (actor === "signed-out") return writes(401);
  const exception = route.except?.[actor];
  if (exception !== undefined) return writes(exception);
  if (route.needs === "session") return writes(200);
  if (actor === "outsider") return writes(404);
  if (route.needs === "member") return writes(200);
  const statements = DEFAULT_ROLES[actor];
  const granted = Object.entries(route.needs.statement).every(([resource, actions]) =>
    actions.every((a) => statements[resource]?.includes(a)),
  );
  return writes(granted ? 200 : 403);
}

describe("organizations over HTTP: the authorization matrix (generated from the role definitions)", () => {
  it("every route for owner, admin, member, outsider and signed out: the status, and the store changed only when allowed", async () => {
    const s = await setup();
    const people: People = {
      owner: await s.person("owner"),
      admin: await s.person("admin"),
      member: await s.person("member"),
      outsider: await s.person("outsider"),
    };
    const failures: string[] = [];
    for (const route of ROUTES)
      for (const actor of ACTORS) {
        const org = await s.org(people);
        const token = actor === "signed-out" ? undefined : people[actor].token;
        const res = await route.call(s, org, people, token);
        const want = expected(route, actor);
        const changed = await route.changed(s, org, people, actor);
        if (res.status !== want.status)
          failures.push(`${route.route} as ${actor}: ${res.status}, expected ${want.status}`);
        if (changed && !want.writes) failures.push(`${route.route} as ${actor}: changed the store though refused`);
        if (want.writes && !route.reads && !changed)
          failures.push(`${route.route} as ${actor}: answered ${res.status} without the change`);
        // Clean up the active organization the set-active cell wrote, so the next cells start from none.
        if (route.route === "/organization/set-active" && token)
          await s.post("/organization/set-active", { organizationId: null }, token);
      }
    expect(failures).toEqual([]);
  });

  it("has-permission answers from the role's statements, including custom roles and statements", async () => {
    const s = await setup({ roles: { billing: { billing: ["read"] }, member: { project: ["read"] } } });
    const owner = await s.person("owner");
    const billing = await s.person("billing");
    const member = await s.person("member");
    const org = await s.org({ owner, member });
    await s.t.auth.api.addMember({ userId: billing.userId, organizationId: org.id, role: "billing" });
    const check = async (token: string, permissions: Permissions) =>
      (
        await s.json<{ success: boolean }>(
          await s.post("/organization/has-permission", { organizationId: org.id, permissions }, token),
        )
      ).success;
    expect(await check(billing.token, { billing: ["read"] })).toBe(true);
    expect(await check(billing.token, { member: ["delete"] })).toBe(false);
    expect(await check(member.token, { project: ["read"] })).toBe(true);
    expect(await check(member.token, { billing: ["read"] })).toBe(false);
    // The owner can do what any role can.
    expect(await check(owner.token, { billing: ["read"], project: ["read"], organization: ["delete"] })).toBe(true);
    expect(
      await s.t.auth.api.hasPermission({
        userId: billing.userId,
        organizationId: org.id,
        permissions: { billing: ["read"] },
      }),
    ).toBe(true);
    expect(
      await s.t.auth.api.hasPermission({
        userId: billing.userId,
        organizationId: org.id,
        permissions: { billing: ["write"] },
      }),
    ).toBe(false);
    const bad = await s.post(
      "/organization/has-permission",
      { organizationId: org.id, permissions: { billing: "read" } },
      billing.token,
    );
    expect(bad.status).toBe(400);
  });

  it("only an owner grants or changes the owner role; an unknown role is 400", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const admin = await s.person("admin");
    const member = await s.person("member");
    const org = await s.org({ owner, admin, member });
    const promote = (token: string, memberId: string, role: string) =>
      s.post("/organization/update-member-role", { organizationId: org.id, memberId, role }, token);
    expect((await promote(admin.token, member.userId, "owner")).status).toBe(403);
    expect((await promote(admin.token, admin.userId, "owner")).status).toBe(403);
    expect((await promote(admin.token, owner.userId, "member")).status).toBe(403);
    expect(
      (
        await s.post(
          "/organization/remove-member",
          { organizationId: org.id, memberIdOrEmail: owner.userId },
          admin.token,
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await s.post(
          "/organization/invite-member",
          { organizationId: org.id, email: "x@example.com", role: "owner" },
          admin.token,
        )
      ).status,
    ).toBe(403);
    expect((await s.memberOf(org.id, owner.userId))?.role).toBe("owner");
    expect((await s.memberOf(org.id, admin.userId))?.role).toBe("admin");
    const unknown = await promote(owner.token, member.userId, "superuser");
    expect(unknown.status).toBe(400);
    expect((await s.json(unknown)).code).toBe("ROLE_NOT_FOUND");
    expect((await promote(owner.token, member.userId, "owner")).status).toBe(200);
    expect((await s.memberOf(org.id, member.userId))?.role).toBe("owner");
  });
});

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

describe("organizations over HTTP: invitations", () => {
  async function invited(s: Setup, role = "member") {
    const owner = await s.person("owner");
    const invitee = await s.person("invitee");
    const org = await s.org({ owner });
    const res = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role },
      owner.token,
    );
    expect(res.status).toBe(200);
    const invitation = await s.json<{ id: string }>(res);
    return { owner, invitee, org, invitation };
  }

  it("emails a link with the invitation's id; resend renews it; a second invite without resend is 409", async () => {
    const s = await setup({ invitationURL: "/join" });
    const { owner, invitee, org, invitation } = await invited(s);
    await s.t.settle();
    const mail = s.t.emails.last(invitee.email)!;
    expect(mail.template).toBe("organization-invitation");
    expect(mail.text).toContain(`https://app.example/join?invitationId=${invitation.id}`);
    expect(mail.subject).toContain("Acme");
    const again = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role: "member" },
      owner.token,
    );
    expect(again.status).toBe(409);
    expect((await s.json(again)).code).toBe("INVITATION_ALREADY_SENT");
    s.t.clock.advance(3_600_000);
    const resent = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role: "member", resend: true },
      owner.token,
    );
    expect(resent.status).toBe(200);
    const renewed = await s.t.store.organizations.findInvitation(invitation.id);
    expect(renewed?.expiresAt.getTime()).toBe(s.t.clock.now() + 48 * 3_600_000);
    await s.t.settle();
    expect(s.t.emails.sent.filter((m) => m.to === invitee.email)).toHaveLength(2);
    expect((await s.t.store.organizations.listInvitations(org.id)).length).toBe(1);
  });

  it("accept adds the member with the invitation's role, once; the second accept is 409", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s, "admin");
    const res = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(res.status).toBe(200);
    expect(await s.json(res)).toMatchObject({
      invitation: { status: "accepted" },
      member: { role: "admin", userId: invitee.userId },
    });
    expect((await s.memberOf(org.id, invitee.userId))?.role).toBe("admin");
    const twice = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(twice.status).toBe(409);
    expect((await s.json(twice)).code).toBe("INVITATION_NOT_PENDING");
    expect((await s.t.store.organizations.listMembers(org.id)).length).toBe(2);
    const mine = await s.json<unknown[]>(await s.get("/organization/list-invitations", invitee.token));
    expect(mine).toEqual([]);
  });

  it("the wrong user, an unverified address, an expired or a canceled invitation: refused, nothing written", async () => {
    const s = await setup();
    const { owner, invitee, org, invitation } = await invited(s);
    const stranger = await s.person("stranger");
    const wrong = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, stranger.token);
    expect(wrong.status).toBe(403);
    expect((await s.json(wrong)).code).toBe("INVITATION_RECIPIENT_MISMATCH");
    expect(await s.memberOf(org.id, stranger.userId)).toBeNull();
    await s.t.store.users.update(invitee.userId, { emailVerified: false });
    const unverified = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(unverified.status).toBe(403);
    expect((await s.json(unverified)).code).toBe("EMAIL_NOT_VERIFIED");
    await s.t.store.users.update(invitee.userId, { emailVerified: true });
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("pending");
    s.t.clock.advance(48 * 3_600_000);
    const expired = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(expired.status).toBe(400);
    expect((await s.json(expired)).code).toBe("INVITATION_EXPIRED");
    expect(
      (await s.post("/organization/reject-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(400);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
    // A fresh invitation, canceled before the accept.
    const second = await s.json<{ id: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: invitee.email, role: "member", resend: true },
        owner.token,
      ),
    );
    expect((await s.post("/organization/cancel-invitation", { invitationId: second.id }, owner.token)).status).toBe(
      200,
    );
    const canceled = await s.post("/organization/accept-invitation", { invitationId: second.id }, invitee.token);
    expect(canceled.status).toBe(409);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
    expect((await s.post("/organization/accept-invitation", { invitationId: "nope" }, invitee.token)).status).toBe(404);
  });

  it("reject ends the invitation: a later accept is 409", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s);
    expect(
      (await s.post("/organization/reject-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(200);
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("rejected");
    expect(
      (await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(409);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
  });

  it("an invitation outlives its inviter's membership: accepted after the inviter left", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const admin = await s.person("admin");
    const invitee = await s.person("invitee");
    const org = await s.org({ owner, admin });
    const invitation = await s.json<{ id: string; inviterId: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: invitee.email, role: "member" },
        admin.token,
      ),
    );
    expect(invitation.inviterId).toBe(admin.userId);
    expect((await s.post("/organization/leave", { organizationId: org.id }, admin.token)).status).toBe(200);
    expect(await s.memberOf(org.id, admin.userId)).toBeNull();
    expect(
      (await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(200);
    expect((await s.memberOf(org.id, invitee.userId))?.role).toBe("member");
  });

  it("two parallel accepts of one invitation: exactly one membership", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s);
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(
      (await s.t.store.organizations.listMembers(org.id)).filter((m) => m.user.id === invitee.userId),
    ).toHaveLength(1);
    expect(s.events.filter((e) => e.type === "InvitationAccepted")).toHaveLength(1);
  });

  it("the membership limit and the beforeMemberAdded hook refuse an accept, which stays pending", async () => {
    const s = await setup({
      membershipLimit: 2,
      hooks: {
        beforeMemberAdded: (member, context) => !(context.path === "accept-invitation" && member.role === "admin"),
      },
    });
    const { owner, invitee, org, invitation } = await invited(s, "admin");
    const hooked = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(hooked.status).toBe(403);
    expect((await s.json(hooked)).code).toBe("MEMBER_ADD_REJECTED");
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("pending");
    const other = await s.person("other");
    await s.t.auth.api.addMember({ userId: other.userId, organizationId: org.id, role: "member" });
    const next = await s.person("next");
    const second = await s.json<{ id: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: next.email, role: "member" },
        owner.token,
      ),
    );
    const full = await s.post("/organization/accept-invitation", { invitationId: second.id }, next.token);
    expect(full.status).toBe(409);
    expect((await s.json(full)).code).toBe("MEMBERSHIP_LIMIT_REACHED");
    expect(await s.memberOf(org.id, next.userId)).toBeNull();
  });
});

describe("organizations over HTTP: the last owner", () => {
  it("the last owner can neither leave nor be removed nor demoted: 409 LAST_OWNER", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const other = await s.person("other");
    const org = await s.org({ owner });
    await s.t.auth.api.addMember({ userId: other.userId, organizationId: org.id, role: "owner" });
    expect((await s.post("/organization/leave", { organizationId: org.id }, other.token)).status).toBe(200);
    const leave = await s.post("/organization/leave", { organizationId: org.id }, owner.token);
    expect(leave.status).toBe(409);
    expect((await s.json(leave)).code).toBe("LAST_OWNER");
    const demote = await s.post(
      "/organization/update-member-role",
      { organizationId: org.id, memberId: owner.userId, role: "admin" },
      owner.token,
    );
    expect(demote.status).toBe(409);
    const remove = await s.post(
      "/organization/remove-member",
      { organizationId: org.id, memberIdOrEmail: owner.userId },
      owner.token,
    );
    expect(remove.status).toBe(409);
    expect((await s.memberOf(org.id, owner.userId))?.role).toBe("owner");
  });

  it("of two owners, a parallel leave and demotion (and two leaves, and two cross demotions) leave exactly one owner", async () => {
    const s = await setup();
    const pairs: Array<
      (a: { token: string; userId: string }, b: { token: string; userId: string }, org: string) => Promise<Response>[]
    > = [
      (a, b, org) => [
        s.post("/organization/leave", { organizationId: org }, a.token),
        s.post(
          "/organization/update-member-role",
          { organizationId: org, memberId: b.userId, role: "member" },
          a.token,
        ),
      ],
      (a, b, org) => [
        s.post("/organization/leave", { organizationId: org }, a.token),
        s.post("/organization/leave", { organizationId: org }, b.token),
      ],
      (a, b, org) => [
        s.post("/organization/update-member-role", { organizationId: org, memberId: b.userId, role: "admin" }, a.token),
        s.post("/organization/update-member-role", { organizationId: org, memberId: a.userId, role: "admin" }, b.token),
      ],
    ];
    for (const race of pairs) {
      const a = await s.person("a");
      const b = await s.person("b");
      const org = await s.org({ owner: a });
      await s.t.auth.api.addMember({ userId: b.userId, organizationId: org.id, role: "owner" });
      const statuses = (await Promise.all(race(a, b, org.id))).map((r) => r.status);
      expect(statuses.filter((x) => x === 200)).toHaveLength(1);
      expect(statuses.filter((x) => x === 409 || x === 404)).toHaveLength(1);
      const owners = (await s.t.store.organizations.listMembers(org.id)).filter((m) => m.member.role === "owner");
      expect(owners).toHaveLength(1);
    }
  });

  it("deleting the only owner's account deletes the organization; a co-owned one keeps its other owner", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const member = await s.person("member");
    const co = await s.person("co");
    const sole = await s.org({ owner, member });
    const shared = await s.org({ owner: co, member });
    await s.t.auth.api.addMember({ userId: owner.userId, organizationId: shared.id, role: "owner" });
    await s.t.auth.api.deleteUser(owner.userId);
    expect(await s.t.store.organizations.findById(sole.id)).toBeNull();
    expect(await s.memberOf(sole.id, member.userId)).toBeNull();
    expect(await s.t.store.organizations.findById(shared.id)).not.toBeNull();
    expect((await s.memberOf(shared.id, co.userId))?.role).toBe("owner");
    expect(await s.memberOf(shared.id, owner.userId)).toBeNull();
  });
});
