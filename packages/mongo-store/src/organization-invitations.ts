import type { MemberRecord, OrganizationStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { invitationFromDoc, invitationToDoc } from "./documents.ts";
import { insertReserved, memberDoc, orgExists, reservePlace, userExists } from "./organization-counts.ts";

/**
 * The invitation half of `OrganizationStore`: an accept claims the invitation first (pending to accepted, one
 * conditional update) and puts it back when the member cannot be added.
 */
export function invitationRows(
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
