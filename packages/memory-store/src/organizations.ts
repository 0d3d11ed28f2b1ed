import type { MemberRecord, OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import { copy, dropApiKey, membershipKey, type MemoryDatabase } from "./database.ts";

const OWNER = "owner";
const oldestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1);
const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) => oldestFirst(b, a);

/**
 * Deletes an organization with its members, invitations and API keys, and clears it from the sessions that had it
 * active.
 */
function dropOrganization(db: MemoryDatabase, id: string): boolean {
  if (!db.organizations.delete(id)) return false;
  for (const m of db.members.rowsBy("organization", id)) db.members.delete(m.id);
  for (const i of db.invitations.rowsBy("organization", id)) db.invitations.delete(i.id);
  for (const k of db.apiKeys.rowsBy("organization", id)) dropApiKey(db, k.id);
  for (const s of db.sessions.rowsBy("activeOrganization", id))
    db.sessions.set(s.id, { ...s, activeOrganizationId: null });
  return true;
}

/**
 * What a user's deletion does to organizations: every membership goes, and so does every organization whose only
 * owner the user was (with its members and invitations), so that no organization is left without an owner.
 */
export function dropMemberships(db: MemoryDatabase, userId: string): void {
  for (const m of db.members.rowsBy("user", userId)) {
    const soleOwner =
      m.role === OWNER &&
      !db.members.rowsBy("organization", m.organizationId).some((o) => o.role === OWNER && o.userId !== userId);
    if (soleOwner) dropOrganization(db, m.organizationId);
    else db.members.delete(m.id);
  }
}

const otherOwner = (db: MemoryDatabase, organizationId: string, userId: string) =>
  db.members.rowsBy("organization", organizationId).some((m) => m.role === OWNER && m.userId !== userId);
export const memberOf = (db: MemoryDatabase, organizationId: string, userId: string) =>
  db.members.firstBy("membership", membershipKey({ organizationId, userId }));

function organizationRows(
  db: MemoryDatabase,
): Pick<OrganizationStore, "create" | "findById" | "findBySlug" | "update" | "delete" | "listByUser" | "setActive"> {
  const { organizations, members, users, sessions } = db;
  return {
    async create(organization, owner) {
      if (!users.has(owner.userId)) return "owner-gone";
      if (organizations.firstBy("slug", organization.slug)) return "slug-taken";
      organizations.set(organization.id, copy(organization));
      members.set(owner.id, copy(owner));
      return "created";
    },
    async findById(id) {
      const row = organizations.get(id);
      return row ? copy(row) : null;
    },
    async findBySlug(slug) {
      const row = organizations.firstBy("slug", slug);
      return row ? copy(row) : null;
    },
    async update(id, patch) {
      const row = organizations.get(id);
      if (!row) return null;
      if (patch.slug !== undefined && patch.slug !== row.slug && organizations.firstBy("slug", patch.slug))
        return "slug-taken";
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const next = { ...row, ...copy(defined) };
      organizations.set(id, next);
      return copy(next);
    },
    async delete(id) {
      return dropOrganization(db, id);
    },
    async listByUser(userId) {
      return members
        .rowsBy("user", userId)
        .sort(oldestFirst)
        .flatMap((member) => {
          const organization = organizations.get(member.organizationId);
          return organization ? [{ organization: copy(organization), member: copy(member) }] : [];
        });
    },
    async setActive(sessionId, userId, organizationId) {
      const session = sessions.get(sessionId);
      if (!session || session.userId !== userId) return false;
      if (organizationId !== null && !memberOf(db, organizationId, userId)) return false;
      sessions.set(sessionId, { ...session, activeOrganizationId: organizationId });
      return true;
    },
  };
}

function memberRows(
  db: MemoryDatabase,
): Pick<OrganizationStore, "findMember" | "listMembers" | "addMember" | "updateMemberRole" | "removeMember"> {
  const { organizations, members, users } = db;
  return {
    async findMember(organizationId, userId) {
      const row = memberOf(db, organizationId, userId);
      return row ? copy(row) : null;
    },
    async listMembers(organizationId) {
      return members
        .rowsBy("organization", organizationId)
        .sort(oldestFirst)
        .flatMap((member) => {
          const user = users.get(member.userId);
          return user ? [{ member: copy(member), user: copy(user) }] : [];
        });
    },
    async addMember(member, limit) {
      if (!organizations.has(member.organizationId)) return "organization-gone";
      if (!users.has(member.userId)) return "user-gone";
      if (memberOf(db, member.organizationId, member.userId)) return "exists";
      if (limit !== null && members.rowsBy("organization", member.organizationId).length >= limit) return "limit";
      members.set(member.id, copy(member));
      return "added";
    },
    async updateMemberRole(organizationId, userId, role): Promise<OwnerGuardedResult> {
      const row = memberOf(db, organizationId, userId);
      if (!row) return { ok: false, reason: "not-found" };
      if (row.role === OWNER && role !== OWNER && !otherOwner(db, organizationId, userId))
        return { ok: false, reason: "last-owner" };
      const next: MemberRecord = { ...row, role };
      members.set(row.id, next);
      return { ok: true, member: copy(next), previousRole: row.role };
    },
    async removeMember(organizationId, userId): Promise<OwnerGuardedResult> {
      const row = memberOf(db, organizationId, userId);
      if (!row) return { ok: false, reason: "not-found" };
      if (row.role === OWNER && !otherOwner(db, organizationId, userId)) return { ok: false, reason: "last-owner" };
      members.delete(row.id);
      return { ok: true, member: copy(row), previousRole: row.role };
    },
  };
}

function invitationRows(
  db: MemoryDatabase,
): Pick<
  OrganizationStore,
  | "createInvitation"
  | "findInvitation"
  | "findPendingInvitation"
  | "renewInvitation"
  | "listInvitations"
  | "listInvitationsByEmail"
  | "acceptInvitation"
  | "settleInvitation"
> {
  const { organizations, members, invitations, users } = db;
  return {
    async createInvitation(invitation) {
      if (!organizations.has(invitation.organizationId)) return false;
      invitations.set(invitation.id, copy(invitation));
      return true;
    },
    async findInvitation(id) {
      const row = invitations.get(id);
      return row ? copy(row) : null;
    },
    async findPendingInvitation(organizationId, email) {
      const row = invitations
        .rowsBy("email", email)
        .filter((i) => i.organizationId === organizationId && i.status === "pending")
        .sort(newestFirst)[0];
      return row ? copy(row) : null;
    },
    async renewInvitation(id, expiresAt) {
      const row = invitations.get(id);
      if (row?.status !== "pending") return null;
      const next = { ...row, expiresAt: new Date(expiresAt) };
      invitations.set(id, next);
      return copy(next);
    },
    async listInvitations(organizationId) {
      return invitations.rowsBy("organization", organizationId).sort(newestFirst).map(copy);
    },
    async listInvitationsByEmail(email) {
      return invitations
        .rowsBy("email", email)
        .filter((i) => i.status === "pending")
        .sort(newestFirst)
        .map(copy);
    },
    async acceptInvitation(id, acceptance, limit) {
      const row = invitations.get(id);
      if (!row) return { ok: false, reason: "not-found" };
      if (row.status !== "pending") return { ok: false, reason: "not-pending" };
      if (row.expiresAt.getTime() <= acceptance.at.getTime()) return { ok: false, reason: "expired" };
      if (row.email !== acceptance.email) return { ok: false, reason: "wrong-email" };
      if (!organizations.has(row.organizationId) || !users.has(acceptance.userId))
        return { ok: false, reason: "not-found" };
      if (memberOf(db, row.organizationId, acceptance.userId)) return { ok: false, reason: "exists" };
      if (limit !== null && members.rowsBy("organization", row.organizationId).length >= limit)
        return { ok: false, reason: "limit" };
      const member: MemberRecord = {
        id: acceptance.memberId,
        organizationId: row.organizationId,
        userId: acceptance.userId,
        role: row.role,
        createdAt: new Date(acceptance.at),
      };
      const accepted = { ...row, status: "accepted" as const };
      invitations.set(id, accepted);
      members.set(member.id, member);
      return { ok: true, member: copy(member), invitation: copy(accepted) };
    },
    async settleInvitation(id, status) {
      const row = invitations.get(id);
      if (row?.status !== "pending") return null;
      const next = { ...row, status };
      invitations.set(id, next);
      return copy(next);
    },
  };
}

/**
 * `OrganizationStore` in memory: the unique `slug` and `membership` indexes decide uniqueness; every check and its
 * write happen in one synchronous step, so the last-owner rule, the membership limit and single-use invitations are
 * atomic.
 */
export function organizationsPort(db: MemoryDatabase): OrganizationStore {
  return { ...organizationRows(db), ...memberRows(db), ...invitationRows(db) };
}
