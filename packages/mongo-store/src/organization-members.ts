import type { OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { memberFromDoc, userFromDoc } from "./documents.ts";
import {
  bump,
  insertReserved,
  memberDoc,
  orgExists,
  OWNER,
  releaseOwner,
  reservePlace,
  userExists,
} from "./organization-counts.ts";

/** The member half of `OrganizationStore`: an owner's demotion or removal first releases one owner from the count. */
export function memberRows(
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
