import type { MemberRecord } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { memberToDoc } from "./documents.ts";
import { duplicateKeyFields } from "./errors.ts";

// Each organization document counts its members and owners: the conditional updates that move those counts, and
// the lookups that the organization, member and invitation writes share.

export const OWNER = "owner";

const isMembershipTaken = (error: unknown) => {
  const fields = duplicateKeyFields(error);
  return fields?.includes("organizationId") && fields.includes("userId");
};

/** Takes one owner off the organization's count, only while another remains; false: this is the last one. */
export async function releaseOwner(c: Collections, organizationId: string): Promise<boolean> {
  const r = await c.organizations.updateOne(
    { _id: { $eq: organizationId }, ownerCount: { $gt: 1 } },
    { $inc: { ownerCount: -1 } },
  );
  return r.modifiedCount === 1;
}

export const bump = (c: Collections, organizationId: string, inc: { memberCount?: number; ownerCount?: number }) =>
  c.organizations.updateOne({ _id: { $eq: organizationId } }, { $inc: inc });

/** Reserves a place under the membership limit (one conditional update); false when the organization is full or gone. */
export async function reservePlace(c: Collections, organizationId: string, limit: number | null): Promise<boolean> {
  const r = await c.organizations.updateOne(
    { _id: { $eq: organizationId }, ...(limit === null ? {} : { memberCount: { $lt: limit } }) },
    { $inc: { memberCount: 1 } },
  );
  return r.modifiedCount === 1;
}

export const memberDoc = (c: Collections, organizationId: string, userId: string) =>
  c.members.findOne({ organizationId: { $eq: organizationId }, userId: { $eq: userId } });
export const userExists = async (c: Collections, userId: string) =>
  (await c.users.countDocuments({ _id: { $eq: userId } }, { limit: 1 })) > 0;
export const orgExists = async (c: Collections, id: string) =>
  (await c.organizations.countDocuments({ _id: { $eq: id } }, { limit: 1 })) > 0;

/** Inserts a member whose place is reserved already; gives the place back when the insert does not happen. */
export async function insertReserved(c: Collections, member: MemberRecord): Promise<"added" | "exists" | "user-gone"> {
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
