import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { at, invitation, uid } from "./fixtures.ts";
import { organizationHelpers } from "./organization-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `organizations` cases: invitations, and their accept (the member added once, refusals that change nothing). */
export function registerOrganizationInvitationCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const { newUser, orgWith } = organizationHelpers(() => store);

  it("invitations: created, found, the pending one by email, renewed, listed; settled only while pending", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner } = await orgWith(port);
    const first = invitation(org.id, owner.id, { createdAt: at(1_000) });
    const second = invitation(org.id, owner.id, { createdAt: at(2_000), role: "admin" });
    expect(await port.createInvitation(first)).toBe(true);
    expect(await port.createInvitation(second)).toBe(true);
    expect(await port.createInvitation(invitation(uid("org"), owner.id))).toBe(false);
    expect(await port.findInvitation(first.id)).toEqual(first);
    expect(await port.findInvitation(uid("inv"))).toBeNull();
    expect(await port.findPendingInvitation(org.id, first.email)).toEqual(first);
    expect(await port.findPendingInvitation(org.id, "nobody@example.com")).toBeNull();
    expect(await port.renewInvitation(first.id, at(7_200_000))).toEqual({ ...first, expiresAt: at(7_200_000) });
    expect(await port.listInvitations(org.id)).toEqual([second, { ...first, expiresAt: at(7_200_000) }]);
    expect(await port.listInvitationsByEmail(second.email)).toEqual([second]);
    expect(await port.settleInvitation(second.id, "canceled")).toEqual({ ...second, status: "canceled" });
    expect(await port.settleInvitation(second.id, "rejected")).toBeNull();
    expect(await port.renewInvitation(second.id, at(9_000_000))).toBeNull();
    expect(await port.findPendingInvitation(org.id, second.email)).toBeNull();
    expect(await port.listInvitationsByEmail(second.email)).toEqual([]);
    expect(await port.listInvitations(org.id)).toHaveLength(2);
  });

  it("accept: adds the member with the invitation's role and spends it; refuses twice, expired, another address, canceled", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner } = await orgWith(port);
    const invitee = await newUser();
    const inv = invitation(org.id, owner.id, { email: invitee.email, role: "admin" });
    await port.createInvitation(inv);
    const acceptance = { memberId: uid("m"), userId: invitee.id, email: invitee.email, at: at(1_000) };
    expect(await port.acceptInvitation(inv.id, { ...acceptance, email: "other@example.com" }, null)).toEqual({
      ok: false,
      reason: "wrong-email",
    });
    expect(await port.acceptInvitation(inv.id, { ...acceptance, at: at(3_600_000) }, null)).toEqual({
      ok: false,
      reason: "expired",
    });
    const accepted = await port.acceptInvitation(inv.id, acceptance, null);
    const expected = {
      id: acceptance.memberId,
      organizationId: org.id,
      userId: invitee.id,
      role: "admin",
      createdAt: at(1_000),
    };
    expect(accepted).toEqual({ ok: true, member: expected, invitation: { ...inv, status: "accepted" } });
    expect(await port.findMember(org.id, invitee.id)).toEqual(expected);
    expect(await port.acceptInvitation(inv.id, { ...acceptance, memberId: uid("m") }, null)).toEqual({
      ok: false,
      reason: "not-pending",
    });
    const canceled = invitation(org.id, owner.id, { email: invitee.email });
    await port.createInvitation(canceled);
    await port.settleInvitation(canceled.id, "canceled");
    expect(await port.acceptInvitation(canceled.id, { ...acceptance, memberId: uid("m") }, null)).toEqual({
      ok: false,
      reason: "not-pending",
    });
    expect(await port.acceptInvitation(uid("inv"), acceptance, null)).toEqual({ ok: false, reason: "not-found" });
  });

  it("accept: a member already, or the limit reached, changes nothing (the invitation stays pending)", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner, others } = await orgWith(port, "member");
    const existing = others[0]!.user;
    const again = invitation(org.id, owner.id, { email: existing.email });
    await port.createInvitation(again);
    const base = { at: at(1_000) };
    expect(
      await port.acceptInvitation(
        again.id,
        { ...base, memberId: uid("m"), userId: existing.id, email: existing.email },
        null,
      ),
    ).toEqual({ ok: false, reason: "exists" });
    const newcomer = await newUser();
    const full = invitation(org.id, owner.id, { email: newcomer.email });
    await port.createInvitation(full);
    expect(
      await port.acceptInvitation(
        full.id,
        { ...base, memberId: uid("m"), userId: newcomer.id, email: newcomer.email },
        2,
      ),
    ).toEqual({ ok: false, reason: "limit" });
    expect((await port.findInvitation(again.id))?.status).toBe("pending");
    expect((await port.findInvitation(full.id))?.status).toBe("pending");
    expect(await port.listMembers(org.id)).toHaveLength(2);
  });

  it("8 parallel accepts of one invitation add exactly one membership", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner } = await orgWith(port);
    const invitee = await newUser();
    const inv = invitation(org.id, owner.id, { email: invitee.email });
    await port.createInvitation(inv);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        port.acceptInvitation(
          inv.id,
          { memberId: uid("m"), userId: invitee.id, email: invitee.email, at: at(1_000) },
          null,
        ),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && (r.reason === "not-pending" || r.reason === "exists"))).toHaveLength(7);
    expect((await port.listMembers(org.id)).filter(({ user }) => user.id === invitee.id)).toHaveLength(1);
  });
}
