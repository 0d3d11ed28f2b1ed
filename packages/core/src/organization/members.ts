/** Members: role changes, removals, leaving, and direct additions by trusted code. */
import { randomId } from "../crypto/crypto.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { MemberRecord, UserRecord } from "../ports/records.ts";
import { OWNER_ROLE } from "./roles.ts";
import { authorized, beforeMemberAdded, checkRole, clockNow, membership, type OrganizationDeps } from "./access.ts";
import { forbidden, guardedRefusal, limitReached, notFound } from "./refusals.ts";
import { toMemberView, type MemberView } from "./view.ts";

async function targetMember(
  deps: OrganizationDeps,
  organizationId: string,
  memberId: unknown,
  field: string,
): Promise<MemberRecord> {
  if (typeof memberId !== "string" || memberId === "" || memberId.length > 320)
    throw invalidField(field, `${field} must be a string`);
  const members = await deps.store.listMembers(organizationId);
  const found = members.find(
    ({ member, user }) => member.id === memberId || member.userId === memberId || user.email === memberId.toLowerCase(),
  );
  if (!found) throw new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
  return found.member;
}

/**
 * Changes a member's role (`member: ["update"]`). Only an owner may make someone an owner or change an owner's
 * role; the last owner cannot be demoted (409 `LAST_OWNER`).
 */
export async function updateMemberRole(
  deps: OrganizationDeps,
  user: UserRecord,
  input: { organizationId: string; memberId: string; role: string },
  meta: RequestMeta,
): Promise<MemberView> {
  const role = checkRole(deps.options, input.role);
  const { organization, member: actor } = await authorized(
    deps,
    user.id,
    { organizationId: input.organizationId },
    { member: ["update"] },
  );
  const target = await targetMember(deps, organization.id, input.memberId, "memberId");
  if ((role === OWNER_ROLE || target.role === OWNER_ROLE) && actor.role !== OWNER_ROLE) throw forbidden();
  const result = await deps.store.updateMemberRole(organization.id, target.userId, role);
  if (!result.ok) throw guardedRefusal(result.reason);
  await emit(
    deps.ctx,
    "MemberRoleChanged",
    {
      userId: user.id,
      organizationId: organization.id,
      memberUserId: target.userId,
      from: result.previousRole,
      to: role,
    },
    meta,
  );
  const targetUser = await deps.ctx.store.users.findById(target.userId);
  if (!targetUser) throw new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
  return toMemberView(result.member, targetUser);
}

/** Removes a member (`member: ["delete"]`); only an owner removes an owner, and never the last one (409). */
export async function removeMember(
  deps: OrganizationDeps,
  user: UserRecord,
  input: { organizationId: string; memberIdOrEmail: string },
  meta: RequestMeta,
): Promise<{ success: true }> {
  const { organization, member: actor } = await authorized(
    deps,
    user.id,
    { organizationId: input.organizationId },
    { member: ["delete"] },
  );
  const target = await targetMember(deps, organization.id, input.memberIdOrEmail, "memberIdOrEmail");
  if (target.role === OWNER_ROLE && actor.role !== OWNER_ROLE) throw forbidden();
  const result = await deps.store.removeMember(organization.id, target.userId);
  if (!result.ok) throw guardedRefusal(result.reason);
  await emit(
    deps.ctx,
    "MemberRemoved",
    { userId: user.id, organizationId: organization.id, memberUserId: target.userId, reason: "removed" },
    meta,
  );
  return { success: true };
}

/** Leaves the organization; the last owner cannot (409 `LAST_OWNER`: make someone else owner, or delete it). */
export async function leaveOrganization(
  deps: OrganizationDeps,
  user: UserRecord,
  organizationId: string,
  meta: RequestMeta,
): Promise<{ success: true }> {
  const { organization } = await membership(deps, user.id, { organizationId });
  const result = await deps.store.removeMember(organization.id, user.id);
  if (!result.ok) throw guardedRefusal(result.reason);
  await emit(
    deps.ctx,
    "MemberRemoved",
    { userId: user.id, organizationId: organization.id, memberUserId: user.id, reason: "left" },
    meta,
  );
  return { success: true };
}

/** Adds a user as a member directly (trusted server code: `auth.api.addMember`), within the membership limit. */
export async function addMember(
  deps: OrganizationDeps,
  input: { userId: string; organizationId: string; role: string },
  meta: RequestMeta,
): Promise<MemberView> {
  const role = checkRole(deps.options, input.role);
  const user = await deps.ctx.store.users.findById(input.userId);
  if (!user) throw new AuthError("MEMBER_NOT_FOUND", "No such user");
  const organization = await deps.store.findById(input.organizationId);
  if (!organization) throw notFound();
  const member: MemberRecord = {
    id: randomId(deps.ctx.random),
    organizationId: organization.id,
    userId: user.id,
    role,
    createdAt: clockNow(deps),
  };
  await beforeMemberAdded(deps, member, "add-member", user);
  const result = await deps.store.addMember(member, deps.options.membershipLimit);
  if (result === "exists") throw new AuthError("ALREADY_A_MEMBER", "The user is a member already");
  if (result === "limit") throw limitReached();
  if (result === "organization-gone") throw notFound();
  if (result === "user-gone") throw new AuthError("MEMBER_NOT_FOUND", "No such user");
  await emit(
    deps.ctx,
    "MemberAdded",
    { userId: user.id, organizationId: organization.id, memberUserId: user.id, role, via: "api" },
    meta,
  );
  return toMemberView(member, user);
}
