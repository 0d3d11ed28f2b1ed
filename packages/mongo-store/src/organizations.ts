import type { OrganizationStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { memberFromDoc, memberToDoc, organizationFromDoc, organizationToDoc, patchToSet } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";
import { bump, memberDoc, OWNER, releaseOwner, userExists } from "./organization-counts.ts";
import { invitationRows } from "./organization-invitations.ts";
import { memberRows } from "./organization-members.ts";

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
