import type { MemberRecord, OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import type { Collections } from "./database.ts";
import {
  invitationFromDoc,
  invitationToDoc,
  memberFromDoc,
  memberToDoc,
  organizationFromDoc,
  organizationToDoc,
  patchToSet,
  userFromDoc,
} from "./documents.ts";
import { duplicateKeyFields, isDuplicateOn } from "./errors.ts";

const OWNER = "owner";

const isMembershipTaken = (error: unknown) => {
  const fields = duplicateKeyFields(error);
  return fields?.includes("organizationId") && fields.includes("userId");
};

/**
 * Deletes an organization with its members, invitations and API keys, and clears it from the sessions that had it
 * active. The keys go after the members: a key created meanwhile is either seen here, or its create (which checks
 * the membership after its insert) finds the member gone and takes it back.
 */
async function dropOrganization(c: Collections, id: string): Promise<boolean> {
  const gone = await c.organizations.findOneAndDelete({ _id: { $eq: id } });
  await c.members.deleteMany({ organizationId: { $eq: id } });
  await c.invitations.deleteMany({ organizationId: { $eq: id } });
  await c.apiKeys.deleteMany({ organizationId: { $eq: id, $type: "string" } });
  await c.sessions.updateMany({ activeOrganizationId: { $eq: id } }, { $set: { activeOrganizationId: null } });
  return gone !== null;
}

/** Takes one owner off the organization's count, only while another remains; false: this is the last one. */
async function releaseOwner(c: Collections, organizationId: string): Promise<boolean> {
  const r = await c.organizations.updateOne(
    { _id: { $eq: organizationId }, ownerCount: { $gt: 1 } },
    { $inc: { ownerCount: -1 } },
  );
  return r.modifiedCount === 1;
}

const bump = (c: Collections, organizationId: string, inc: { memberCount?: number; ownerCount?: number }) =>
  c.organizations.updateOne({ _id: { $eq: organizationId } }, { $inc: inc });

/** Reserves a place under the membership limit (one conditional update); false when the organization is full or gone. */
async function reservePlace(c: Collections, organizationId: string, limit: number | null): Promise<boolean> {
  const r = await c.organizations.updateOne(
    { _id: { $eq: organizationId }, ...(limit === null ? {} : { memberCount: { $lt: limit } }) },
    { $inc: { memberCount: 1 } },
  );
  return r.modifiedCount === 1;
}

/**
 * What a user's deletion does to their memberships: each goes, and an organization whose only owner they are goes
 * whole (its owner count cannot drop below one). Run before the user's own row is deleted.
 */
export async function deleteMemberships(c: Collections, userId: string): Promise<void> {
  const memberships = await c.members.find({ userId: { $eq: userId } }).toArray();
  for (const doc of memberships) {
    if (doc.role === OWNER && !(await releaseOwner(c, doc.organizationId))) {
      await dropOrganization(c, doc.organizationId);
      continue;
    }
    if ((await c.members.deleteOne({ _id: { $eq: doc._id } })).deletedCount === 1)
      await bump(c, doc.organizationId, { memberCount: -1 });
  }
}

const memberDoc = (c: Collections, organizationId: string, userId: string) =>
  c.members.findOne({ organizationId: { $eq: organizationId }, userId: { $eq: userId } });
const userExists = async (c: Collections, userId: string) =>
  (await c.users.countDocuments({ _id: { $eq: userId } }, { limit: 1 })) > 0;
const orgExists = async (c: Collections, id: string) =>
  (await c.organizations.countDocuments({ _id: { $eq: id } }, { limit: 1 })) > 0;

/** Inserts a member whose place is reserved already; gives the place back when the insert does not happen. */
async function insertReserved(c: Collections, member: MemberRecord): Promise<"added" | "exists" | "user-gone"> {
  try {
    await c.members.insertOne(memberToDoc(member));
  } catch (error) {
    await bump(c, member.organizationId, { memberCount: -1 });
    if (isMembershipTaken(error)) return "exists";
    throw error;
  }
  if (member.role === OWNER) await bump(c, member.organizationId, { ownerCount: 1 });
  // The user may have been deleted between the check and the insert: take the row back.
  if (!(await userExists(c, member.userId))) {
    await c.members.deleteOne({ _id: { $eq: member.id } });
    await bump(c, member.organizationId, { memberCount: -1, ...(member.role === OWNER ? { ownerCount: -1 } : {}) });
    return "user-gone";
  }
  return "added";
}

function organizationRows(
  c: Collections,
): Pick<OrganizationStore, "create" | "findById" | "findBySlug" | "update" | "delete" | "listByUser" | "setActive"> {
  return {
    async create(organization, owner) {
      if (!(await userExists(c, owner.userId))) return "owner-gone";
      try {
        await c.organizations.insertOne(organizationToDoc(organization, { memberCount: 1, ownerCount: 1 }));
      } catch (error) {
        if (isDuplicateOn(error, "slug")) return "slug-taken";
        throw error;
      }
      try {
        await c.members.insertOne(memberToDoc(owner));
      } catch (error) {
        await c.organizations.deleteOne({ _id: { $eq: organization.id } });
        throw error;
      }
      if (!(await userExists(c, owner.userId))) {
        await dropOrganization(c, organization.id);
        return "owner-gone";
      }
      return "created";
    },
    async findById(id) {
      const doc = await c.organizations.findOne({ _id: { $eq: id } });
      return doc ? organizationFromDoc(doc) : null;
    },
    async findBySlug(slug) {
      const doc = await c.organizations.findOne({ slug: { $eq: slug } });
      return doc ? organizationFromDoc(doc) : null;
    },
    async update(id, patch) {
      const set = patchToSet(patch);
      try {
        const doc =
          set === null
            ? await c.organizations.findOne({ _id: { $eq: id } })
            : await c.organizations.findOneAndUpdate({ _id: { $eq: id } }, { $set: set }, { returnDocument: "after" });
        return doc ? organizationFromDoc(doc) : null;
      } catch (error) {
        if (isDuplicateOn(error, "slug")) return "slug-taken";
        throw error;
      }
    },
    delete(id) {
      return dropOrganization(c, id);
    },
    async listByUser(userId) {
      const memberships = await c.members
        .find({ userId: { $eq: userId } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      if (memberships.length === 0) return [];
      const orgs = await c.organizations.find({ _id: { $in: memberships.map((m) => m.organizationId) } }).toArray();
      const byId = new Map(orgs.map((o) => [o._id, organizationFromDoc(o)]));
      return memberships.flatMap((m) => {
        const organization = byId.get(m.organizationId);
        return organization ? [{ organization, member: memberFromDoc(m) }] : [];
      });
    },
    async setActive(sessionId, userId, organizationId) {
      if (organizationId !== null && !(await memberDoc(c, organizationId, userId))) return false;
      const r = await c.sessions.updateOne(
        { _id: { $eq: sessionId }, userId: { $eq: userId } },
        { $set: { activeOrganizationId: organizationId } },
      );
      return r.matchedCount === 1;
    },
  };
}

function memberRows(
  c: Collections,
): Pick<OrganizationStore, "findMember" | "listMembers" | "addMember" | "updateMemberRole" | "removeMember"> {
  return {
    async findMember(organizationId, userId) {
      const doc = await memberDoc(c, organizationId, userId);
      return doc ? memberFromDoc(doc) : null;
    },
    async listMembers(organizationId) {
      const docs = await c.members
        .find({ organizationId: { $eq: organizationId } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      if (docs.length === 0) return [];
      const users = await c.users.find({ _id: { $in: docs.map((d) => d.userId) } }).toArray();
      const byId = new Map(users.map((u) => [u._id, userFromDoc(u)]));
      return docs.flatMap((d) => {
        const user = byId.get(d.userId);
        return user ? [{ member: memberFromDoc(d), user }] : [];
      });
    },
    async addMember(member, limit) {
      if (!(await userExists(c, member.userId))) return "user-gone";
      if (await memberDoc(c, member.organizationId, member.userId)) return "exists";
      if (!(await reservePlace(c, member.organizationId, limit)))
        return (await orgExists(c, member.organizationId)) ? "limit" : "organization-gone";
      return insertReserved(c, member);
    },
    async updateMemberRole(organizationId, userId, role): Promise<OwnerGuardedResult> {
      for (;;) {
        const doc = await memberDoc(c, organizationId, userId);
        if (!doc) return { ok: false, reason: "not-found" };
        const demotes = doc.role === OWNER && role !== OWNER;
        const promotes = doc.role !== OWNER && role === OWNER;
        if (demotes && !(await releaseOwner(c, organizationId))) {
          // The count says last owner: refused, unless the row changed meanwhile (then decide again).
          const now = await memberDoc(c, organizationId, userId);
          if (now && now.role === doc.role) return { ok: false, reason: "last-owner" };
          continue;
        }
        const updated = await c.members.findOneAndUpdate(
          { _id: { $eq: doc._id }, role: { $eq: doc.role } },
          { $set: { role } },
          { returnDocument: "after" },
        );
        if (!updated) {
          if (demotes) await bump(c, organizationId, { ownerCount: 1 });
          continue;
        }
        if (promotes) await bump(c, organizationId, { ownerCount: 1 });
        return { ok: true, member: memberFromDoc(updated), previousRole: doc.role };
      }
    },
    async removeMember(organizationId, userId): Promise<OwnerGuardedResult> {
      for (;;) {
        const doc = await memberDoc(c, organizationId, userId);
        if (!doc) return { ok: false, reason: "not-found" };
        const owner = doc.role === OWNER;
        if (owner && !(await releaseOwner(c, organizationId))) {
          const now = await memberDoc(c, organizationId, userId);
          if (now && now.role === doc.role) return { ok: false, reason: "last-owner" };
          continue;
        }
        const gone = await c.members.findOneAndDelete({ _id: { $eq: doc._id }, role: { $eq: doc.role } });
        if (!gone) {
          if (owner) await bump(c, organizationId, { ownerCount: 1 });
          continue;
        }
        await bump(c, organizationId, { memberCount: -1 });
        return { ok: true, member: memberFromDoc(gone), previousRole: doc.role };
      }
    },
  };
}

function invitationRows(
  c: Collections,
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
  return {
    async createInvitation(invitation) {
      if (!(await orgExists(c, invitation.organizationId))) return false;
      await c.invitations.insertOne(invitationToDoc(invitation));
      if (!(await orgExists(c, invitation.organizationId))) {
        await c.invitations.deleteOne({ _id: { $eq: invitation.id } });
        return false;
      }
      return true;
    },
    async findInvitation(id) {
      const doc = await c.invitations.findOne({ _id: { $eq: id } });
      return doc ? invitationFromDoc(doc) : null;
    },
    async findPendingInvitation(organizationId, email) {
      const [doc] = await c.invitations
        .find({ organizationId: { $eq: organizationId }, email: { $eq: email }, status: { $eq: "pending" } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(1)
        .toArray();
      return doc ? invitationFromDoc(doc) : null;
    },
    async renewInvitation(id, expiresAt) {
      const doc = await c.invitations.findOneAndUpdate(
        { _id: { $eq: id }, status: { $eq: "pending" } },
        { $set: { expiresAt } },
        { returnDocument: "after" },
      );
      return doc ? invitationFromDoc(doc) : null;
    },
    async listInvitations(organizationId) {
      const docs = await c.invitations
        .find({ organizationId: { $eq: organizationId } })
        .sort({ createdAt: -1, _id: -1 })
        .toArray();
      return docs.map(invitationFromDoc);
    },
    async listInvitationsByEmail(email) {
      const docs = await c.invitations
        .find({ email: { $eq: email }, status: { $eq: "pending" } })
        .sort({ createdAt: -1, _id: -1 })
        .toArray();
      return docs.map(invitationFromDoc);
    },
    async acceptInvitation(id, acceptance, limit) {
      const claimed = await c.invitations.findOneAndUpdate(
        {
          _id: { $eq: id },
          status: { $eq: "pending" },
          expiresAt: { $gt: acceptance.at },
          email: { $eq: acceptance.email },
        },
        { $set: { status: "accepted" } },
        { returnDocument: "after" },
      );
      if (!claimed) {
        const doc = await c.invitations.findOne({ _id: { $eq: id } });
        if (!doc) return { ok: false, reason: "not-found" };
        if (doc.status !== "pending") return { ok: false, reason: "not-pending" };
        if (doc.expiresAt.getTime() <= acceptance.at.getTime()) return { ok: false, reason: "expired" };
        return { ok: false, reason: "wrong-email" };
      }
      // Won: the member is added, or the invitation goes back to pending with the reason.
      const giveBack = async (reason: "not-found" | "exists" | "limit") => {
        await c.invitations.updateOne(
          { _id: { $eq: id }, status: { $eq: "accepted" } },
          { $set: { status: "pending" } },
        );
        return { ok: false as const, reason };
      };
      const member: MemberRecord = {
        id: acceptance.memberId,
        organizationId: claimed.organizationId,
        userId: acceptance.userId,
        role: claimed.role,
        createdAt: acceptance.at,
      };
      if (!(await userExists(c, member.userId))) return giveBack("not-found");
      if (await memberDoc(c, member.organizationId, member.userId)) return giveBack("exists");
      if (!(await reservePlace(c, member.organizationId, limit)))
        return giveBack((await orgExists(c, member.organizationId)) ? "limit" : "not-found");
      const added = await insertReserved(c, member);
      if (added !== "added") return giveBack(added === "exists" ? "exists" : "not-found");
      return { ok: true, member, invitation: invitationFromDoc(claimed) };
    },
    async settleInvitation(id, status) {
      const doc = await c.invitations.findOneAndUpdate(
        { _id: { $eq: id }, status: { $eq: "pending" } },
        { $set: { status } },
        { returnDocument: "after" },
      );
      return doc ? invitationFromDoc(doc) : null;
    },
  };
}

/**
 * `OrganizationStore` over MongoDB, atomic without multi-document transactions: each organization document counts
 * its members and owners, and every write that could break the last-owner rule or the membership limit first moves
 * that count with one conditional update (`ownerCount > 1`, `memberCount < limit`), then writes the membership,
 * and gives the count back if the membership write does not happen. An accept first moves the invitation from
 * pending to accepted (one conditional update: of N parallel accepts one matches), and puts it back when the
 * member cannot be added. The unique indexes decide slugs and memberships.
 */
export function organizationsPort(c: Collections): OrganizationStore {
  return { ...organizationRows(c), ...memberRows(c), ...invitationRows(c) };
}
