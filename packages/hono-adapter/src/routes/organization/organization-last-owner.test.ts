import { describe, expect, it } from "vitest";
import { setup } from "./organization-fixture.ts";

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
