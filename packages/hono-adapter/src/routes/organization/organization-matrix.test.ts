import { describe, expect, it } from "vitest";
import { DEFAULT_ROLES, type Permissions } from "@latchkey/core";
import { setup, type Setup, type People } from "./organization-fixture.ts";

type Actor = "owner" | "admin" | "member" | "outsider" | "signed-out";
const ACTORS: Actor[] = ["owner", "admin", "member", "outsider", "signed-out"];

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
