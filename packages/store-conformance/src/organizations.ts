import { beforeAll, describe, expect, it } from "vitest";
import type { OrganizationStore, Store } from "@latchkey/core";
import { apiKey, at, invitation, member, organization, session, uid, user } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `organizations` port (organizations, members, invitations); registered by `runStoreConformance`. */
export function describeOrganizations(getStore: () => Store): void {
  describe("organizations", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    const newUser = async () => {
      const u = user();
      expect((await store.users.create(u, [])).ok).toBe(true);
      return u;
    };

    /** An organization owned by a new user; more members with the given roles. */
    async function orgWith(port: OrganizationStore, ...roles: string[]) {
      const owner = await newUser();
      const org = organization();
      const ownerRow = member(org.id, owner.id, { role: "owner" });
      expect(await port.create(org, ownerRow)).toBe("created");
      const others = [];
      for (const [i, role] of roles.entries()) {
        const u = await newUser();
        const row = member(org.id, u.id, { role, createdAt: at(1_000 * (i + 1)) });
        expect(await port.addMember(row, null)).toBe("added");
        others.push({ user: u, member: row });
      }
      return { org, owner, ownerRow, others };
    }

    const owners = async (port: OrganizationStore, organizationId: string) =>
      (await port.listMembers(organizationId)).filter(({ member }) => member.role === "owner").length;

    it("creates an organization with its owner, round-tripping every field; finds by id, slug, user and member", async (context) => {
      const port = portOf(store, "organizations", context);
      const { org, owner, ownerRow, others } = await orgWith(port, "admin");
      expect(await port.findById(org.id)).toEqual(org);
      expect(await port.findBySlug(org.slug)).toEqual(org);
      expect(await port.findById(uid("org"))).toBeNull();
      expect(await port.findBySlug("no-such-slug-anywhere")).toBeNull();
      expect(await port.listByUser(owner.id)).toEqual([{ organization: org, member: ownerRow }]);
      expect(await port.findMember(org.id, owner.id)).toEqual(ownerRow);
      expect(await port.findMember(org.id, uid("u"))).toBeNull();
      const listed = await port.listMembers(org.id);
      expect(listed.map(({ member }) => member)).toEqual([ownerRow, others[0]!.member]);
      expect(listed.map(({ user }) => user.id)).toEqual([owner.id, others[0]!.user.id]);
    });

    it("a slug belongs to one organization: 8 parallel creates give one; a missing owner writes nothing", async (context) => {
      const port = portOf(store, "organizations", context);
      const users = [];
      for (let i = 0; i < 8; i++) users.push(await newUser());
      const slug = `s-${uid("x")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")}`;
      const results = await Promise.all(
        users.map((u) => {
          const org = organization({ slug });
          return port.create(org, member(org.id, u.id, { role: "owner" }));
        }),
      );
      expect(results.filter((r) => r === "created")).toHaveLength(1);
      expect(results.filter((r) => r === "slug-taken")).toHaveLength(7);
      const memberships = await Promise.all(users.map((u) => port.listByUser(u.id)));
      expect(memberships.flat()).toHaveLength(1);
      const ghost = organization();
      expect(await port.create(ghost, member(ghost.id, uid("u"), { role: "owner" }))).toBe("owner-gone");
      expect(await port.findById(ghost.id)).toBeNull();
    });

    it("update: changes the given fields; slug-taken against another organization; null when gone", async (context) => {
      const port = portOf(store, "organizations", context);
      const a = await orgWith(port);
      const b = await orgWith(port);
      const updated = await port.update(a.org.id, {
        name: "Renamed",
        logo: "https://cdn.example/logo.png",
        metadata: { x: 1 },
      });
      expect(updated).toEqual({ ...a.org, name: "Renamed", logo: "https://cdn.example/logo.png", metadata: { x: 1 } });
      expect(await port.update(a.org.id, { slug: b.org.slug })).toBe("slug-taken");
      expect((await port.findById(a.org.id))?.slug).toBe(a.org.slug);
      expect(await port.update(a.org.id, { slug: `${a.org.slug}-2` })).toMatchObject({ slug: `${a.org.slug}-2` });
      expect(await port.update(uid("org"), { name: "x" })).toBeNull();
    });

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

    it("setActive: only a member's own session; null clears; the session lookup reads it", async (context) => {
      const port = portOf(store, "organizations", context);
      const { org, owner } = await orgWith(port);
      const stranger = await newUser();
      const mine = session(owner.id);
      const theirs = session(stranger.id);
      expect(await store.sessions.create(mine)).toBe(true);
      expect(await store.sessions.create(theirs)).toBe(true);
      expect(await port.setActive(mine.id, owner.id, org.id)).toBe(true);
      expect((await store.sessions.findByTokenHash(mine.tokenHash))?.session.activeOrganizationId).toBe(org.id);
      expect(await port.setActive(theirs.id, stranger.id, org.id)).toBe(false);
      expect(await port.setActive(theirs.id, owner.id, org.id)).toBe(false);
      expect((await store.sessions.findByTokenHash(theirs.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
      expect(await port.setActive(mine.id, owner.id, null)).toBe(true);
      expect((await store.sessions.findByTokenHash(mine.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
    });

    it("delete takes the members and invitations and clears the organization from active sessions", async (context) => {
      const port = portOf(store, "organizations", context);
      const { org, owner, others } = await orgWith(port, "admin");
      const inv = invitation(org.id, owner.id);
      await port.createInvitation(inv);
      const s = session(owner.id);
      await store.sessions.create(s);
      await port.setActive(s.id, owner.id, org.id);
      expect(await port.delete(org.id)).toBe(true);
      expect(await port.delete(org.id)).toBe(false);
      expect(await port.findById(org.id)).toBeNull();
      expect(await port.listMembers(org.id)).toEqual([]);
      expect(await port.findMember(org.id, others[0]!.user.id)).toBeNull();
      expect(await port.findInvitation(inv.id)).toBeNull();
      expect(await port.listByUser(owner.id)).toEqual([]);
      expect((await store.sessions.findByTokenHash(s.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
    });

    it("a user's deletion takes their memberships, and the organizations they were the only owner of", async (context) => {
      const port = portOf(store, "organizations", context);
      const sole = await orgWith(port, "admin");
      const shared = await orgWith(port, "owner");
      const leaving = sole.owner;
      expect(await port.addMember(member(shared.org.id, leaving.id, { role: "owner" }), null)).toBe("added");
      const inv = invitation(sole.org.id, leaving.id);
      await port.createInvitation(inv);
      expect(await store.users.delete(leaving.id)).toBe(true);
      expect(await port.findById(sole.org.id)).toBeNull();
      expect(await port.findMember(sole.org.id, sole.others[0]!.user.id)).toBeNull();
      expect(await port.findInvitation(inv.id)).toBeNull();
      expect(await port.findById(shared.org.id)).toEqual(shared.org);
      expect(await port.findMember(shared.org.id, leaving.id)).toBeNull();
      expect(await owners(port, shared.org.id)).toBe(2);
      expect(await port.listByUser(leaving.id)).toEqual([]);
    });

    it("an organization's API keys: only for a member, listed newest first, gone with the organization (also under 8 racing creates)", async (context) => {
      const keys = portOf(store, "apiKeys", context);
      const port = portOf(store, "organizations", context);
      const { org, owner, others } = await orgWith(port, "admin");
      const admin = others[0]!.user;
      const own = apiKey(owner.id);
      const first = apiKey(owner.id, { organizationId: org.id, createdAt: at(1_000), updatedAt: at(1_000) });
      const second = apiKey(admin.id, { organizationId: org.id, createdAt: at(2_000), updatedAt: at(2_000) });
      for (const k of [own, first, second]) expect(await keys.create(k, { maxPerUser: 10 })).toBe(true);
      expect(await keys.findById(first.id)).toEqual(first);
      // Not a member, or no such organization: nothing written (with and without a cap).
      const outsider = await newUser();
      const stray = apiKey(outsider.id, { organizationId: org.id });
      expect(await keys.create(stray)).toBe("organization-gone");
      const nowhere = apiKey(owner.id, { organizationId: uid("org") });
      expect(await keys.create(nowhere, { maxPerUser: 10 })).toBe("organization-gone");
      expect(await keys.findById(stray.id)).toBeNull();
      expect(await keys.findById(nowhere.id)).toBeNull();
      const page = await keys.listByOrganization(org.id, { limit: 1, cursor: null });
      expect(page.items).toEqual([second]);
      const rest = await keys.listByOrganization(org.id, { limit: 5, cursor: page.nextCursor });
      expect(rest).toEqual({ items: [first], nextCursor: null });
      expect((await keys.listByUser(owner.id, { limit: 10, cursor: null })).items.map((k) => k.id).sort()).toEqual(
        [own.id, first.id].sort(),
      );
      // Deleting the organization takes its keys, whoever made them; the members' own keys stay.
      expect(await port.delete(org.id)).toBe(true);
      expect(await keys.findById(first.id)).toBeNull();
      expect(await keys.findById(second.id)).toBeNull();
      expect(await keys.findByHashWithOwner(second.keyHash)).toBeNull();
      expect(await keys.findById(own.id)).toEqual(own);
      expect((await keys.listByOrganization(org.id, { limit: 5, cursor: null })).items).toEqual([]);
      // Creates racing the deletion: each is refused or taken with the organization, never left behind.
      const racing = await orgWith(port, "admin");
      const drafts = Array.from({ length: 8 }, (_, i) =>
        apiKey(i % 2 ? racing.owner.id : racing.others[0]!.user.id, { organizationId: racing.org.id }),
      );
      const [deleted] = await Promise.all([port.delete(racing.org.id), ...drafts.map((k) => keys.create(k))]);
      expect(deleted).toBe(true);
      for (const k of drafts) expect(await keys.findById(k.id)).toBeNull();
      // A user's deletion that takes a sole-owned organization takes the keys its other members made for it.
      const sole = await orgWith(port, "admin");
      const theirs = apiKey(sole.others[0]!.user.id, { organizationId: sole.org.id });
      expect(await keys.create(theirs)).toBe(true);
      expect(await store.users.delete(sole.owner.id)).toBe(true);
      expect(await keys.findById(theirs.id)).toBeNull();
    });
  });
}
