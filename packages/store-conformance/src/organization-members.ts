import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { member, uid } from "./fixtures.ts";
import { organizationHelpers } from "./organization-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `organizations` cases: adding members (one per user, the limit), role changes and removals, the last-owner rule. */
export function registerOrganizationMemberCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const { newUser, orgWith, owners } = organizationHelpers(() => store);

  it("addMember: one membership per user; the limit holds under 8 parallel adds; missing sides write nothing", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner } = await orgWith(port);
    expect(await port.addMember(member(org.id, owner.id), null)).toBe("exists");
    expect(await port.addMember(member(org.id, uid("u")), null)).toBe("user-gone");
    const u = await newUser();
    expect(await port.addMember(member(uid("org"), u.id), null)).toBe("organization-gone");
    const users = [];
    for (let i = 0; i < 8; i++) users.push(await newUser());
    const results = await Promise.all(users.map((x) => port.addMember(member(org.id, x.id), 3)));
    expect(results.filter((r) => r === "added")).toHaveLength(2);
    expect(results.filter((r) => r === "limit")).toHaveLength(6);
    expect(await port.listMembers(org.id)).toHaveLength(3);
  });

  it("the last owner can be neither demoted nor removed; other roles change and go", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner, others } = await orgWith(port, "admin");
    expect(await port.updateMemberRole(org.id, owner.id, "admin")).toEqual({ ok: false, reason: "last-owner" });
    expect(await port.removeMember(org.id, owner.id)).toEqual({ ok: false, reason: "last-owner" });
    expect(await port.updateMemberRole(org.id, owner.id, "owner")).toMatchObject({ ok: true, previousRole: "owner" });
    const admin = others[0]!;
    expect(await port.updateMemberRole(org.id, admin.user.id, "member")).toEqual({
      ok: true,
      member: { ...admin.member, role: "member" },
      previousRole: "admin",
    });
    expect(await port.removeMember(org.id, admin.user.id)).toMatchObject({ ok: true, previousRole: "member" });
    expect(await port.findMember(org.id, admin.user.id)).toBeNull();
    expect(await port.removeMember(org.id, admin.user.id)).toEqual({ ok: false, reason: "not-found" });
    expect(await port.updateMemberRole(org.id, uid("u"), "admin")).toEqual({ ok: false, reason: "not-found" });
    expect(await owners(port, org.id)).toBe(1);
  });

  it("of two owners demoted and removed in parallel (every pairing), one stays: the organization keeps an owner", async (context) => {
    const port = portOf(store, "organizations", context);
    const moves = [
      (o: string, u: string) => port.updateMemberRole(o, u, "member"),
      (o: string, u: string) => port.removeMember(o, u),
    ];
    for (const first of moves)
      for (const second of moves)
        for (let round = 0; round < 3; round++) {
          const { org, owner, others } = await orgWith(port, "owner");
          const results = await Promise.all([first(org.id, owner.id), second(org.id, others[0]!.user.id)]);
          expect(results.filter((r) => r.ok)).toHaveLength(1);
          expect(results.filter((r) => !r.ok && r.reason === "last-owner")).toHaveLength(1);
          expect(await owners(port, org.id)).toBe(1);
        }
  });
}
