/** Invitations by email: sending (and resending), accepting, rejecting, canceling and listing them. */
import { randomId } from "../crypto/crypto.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { normalizeEmail, resolveCallbackUrl } from "../kernel/validation.ts";
import type { InvitationRecord, MemberRecord, UserRecord } from "../ports/records.ts";
import { roleGrants } from "../kernel/role-table.ts";
import { OWNER_ROLE } from "./roles.ts";
import { authorized, beforeMemberAdded, checkRole, clockNow, membership, type OrganizationDeps } from "./access.ts";
import type { InviteMemberInput, OrganizationRef } from "./input.ts";
import { acceptRefusal, forbidden, notFound } from "./refusals.ts";
import { toInvitationView, toMemberView, type InvitationView, type MemberView } from "./view.ts";

/**
 * Invites an address (`invitation: ["create"]`); only an owner may invite an owner. A pending invitation of the
 * address is `409 INVITATION_ALREADY_SENT` unless `resend`, which sends it again with a new expiry.
 */
export async function inviteMember(
  deps: OrganizationDeps,
  user: UserRecord,
  input: InviteMemberInput,
  meta: RequestMeta,
): Promise<InvitationView> {
  if (typeof input.email !== "string") throw invalidField("email", "email must be a string");
  const email = normalizeEmail(input.email);
  const role = checkRole(deps.options, input.role);
  const { organization, member } = await authorized(
    deps,
    user.id,
    { organizationId: input.organizationId },
    { invitation: ["create"] },
  );
  if (role === OWNER_ROLE && member.role !== OWNER_ROLE) throw forbidden();
  const invitee = await deps.ctx.store.users.findByEmail(email);
  if (invitee && (await deps.store.findMember(organization.id, invitee.id)))
    throw new AuthError("ALREADY_A_MEMBER", "This address belongs to a member already");
  const at = clockNow(deps);
  const expiresAt = new Date(at.getTime() + deps.options.invitationExpiresInMs);
  const pending = await deps.store.findPendingInvitation(organization.id, email);
  let invitation: InvitationRecord;
  if (pending) {
    if (input.resend !== true)
      throw new AuthError(
        "INVITATION_ALREADY_SENT",
        "This address has a pending invitation; send it again with resend: true",
      );
    await deps.ctx.sendLimits.enforce("organization-invitation", email, meta, invitee?.id ?? null);
    const renewed = await deps.store.renewInvitation(pending.id, expiresAt);
    if (!renewed) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered meanwhile");
    invitation = renewed;
    await emit(
      deps.ctx,
      "InvitationResent",
      { userId: user.id, organizationId: organization.id, invitationId: invitation.id, identifier: email },
      meta,
      at,
    );
  } else {
    await deps.ctx.sendLimits.enforce("organization-invitation", email, meta, invitee?.id ?? null);
    invitation = {
      id: randomId(deps.ctx.random),
      organizationId: organization.id,
      email,
      role,
      inviterId: user.id,
      status: "pending",
      expiresAt,
      createdAt: at,
    };
    if (!(await deps.store.createInvitation(invitation))) throw notFound();
    await emit(
      deps.ctx,
      "InvitationCreated",
      { userId: user.id, organizationId: organization.id, invitationId: invitation.id, identifier: email, role },
      meta,
      at,
    );
  }
  const url = new URL(
    resolveCallbackUrl(deps.ctx.config, deps.options.invitationURL, `${deps.ctx.config.baseUrl}/accept-invitation`),
  );
  url.searchParams.set("invitationId", invitation.id);
  deps.ctx.mailer.sendInBackground(meta, email, "organization-invitation", {
    url: url.toString(),
    email,
    organizationName: organization.name,
    inviterName: user.name ?? user.email,
    role: invitation.role,
    expiresInHours: String(Math.max(1, Math.round(deps.options.invitationExpiresInMs / 3_600_000))),
  });
  return toInvitationView(invitation);
}

/** The invitation, when `user` is its invitee with a verified address: 404 otherwise (never tells whose it is). */
async function invitationFor(
  deps: OrganizationDeps,
  user: UserRecord,
  invitationId: unknown,
): Promise<InvitationRecord> {
  if (typeof invitationId !== "string" || invitationId === "" || invitationId.length > 64)
    throw invalidField("invitationId", "invitationId must be a string");
  const invitation = await deps.store.findInvitation(invitationId);
  if (!invitation) throw new AuthError("INVITATION_NOT_FOUND", "No such invitation");
  if (invitation.email !== user.email)
    throw new AuthError("INVITATION_RECIPIENT_MISMATCH", "This invitation was sent to another address");
  if (!user.emailVerified)
    throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before answering an invitation");
  return invitation;
}

/**
 * Accepts an invitation: only by a signed-in user whose verified email is the invitee's; single-use (of two
 * parallel accepts one wins); expired, canceled, rejected or accepted ones are refused.
 */
export async function acceptInvitation(
  deps: OrganizationDeps,
  user: UserRecord,
  invitationId: string,
  meta: RequestMeta,
): Promise<{ invitation: InvitationView; member: MemberView }> {
  const invitation = await invitationFor(deps, user, invitationId);
  const at = clockNow(deps);
  const draft: MemberRecord = {
    id: randomId(deps.ctx.random),
    organizationId: invitation.organizationId,
    userId: user.id,
    role: invitation.role,
    createdAt: at,
  };
  if (invitation.status === "pending" && invitation.expiresAt > at)
    await beforeMemberAdded(deps, draft, "accept-invitation", user);
  const result = await deps.store.acceptInvitation(
    invitation.id,
    { memberId: draft.id, userId: user.id, email: user.email, at },
    deps.options.membershipLimit,
  );
  if (!result.ok) throw acceptRefusal(result.reason);
  await emit(
    deps.ctx,
    "InvitationAccepted",
    { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
    meta,
    at,
  );
  await emit(
    deps.ctx,
    "MemberAdded",
    {
      userId: user.id,
      organizationId: invitation.organizationId,
      memberUserId: user.id,
      role: result.member.role,
      via: "invitation",
    },
    meta,
    at,
  );
  return { invitation: toInvitationView(result.invitation), member: toMemberView(result.member, user) };
}

/** Rejects an invitation: the same rules as accepting it. */
export async function rejectInvitation(
  deps: OrganizationDeps,
  user: UserRecord,
  invitationId: string,
  meta: RequestMeta,
): Promise<InvitationView> {
  const invitation = await invitationFor(deps, user, invitationId);
  if (invitation.status === "pending" && invitation.expiresAt <= clockNow(deps))
    throw new AuthError("INVITATION_EXPIRED", "The invitation expired");
  const settled = await deps.store.settleInvitation(invitation.id, "rejected");
  if (!settled) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
  await emit(
    deps.ctx,
    "InvitationRejected",
    { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
    meta,
  );
  return toInvitationView(settled);
}

/** Cancels a pending invitation (`invitation: ["cancel"]`). */
export async function cancelInvitation(
  deps: OrganizationDeps,
  user: UserRecord,
  invitationId: string,
  meta: RequestMeta,
): Promise<InvitationView> {
  if (typeof invitationId !== "string" || invitationId === "" || invitationId.length > 64)
    throw invalidField("invitationId", "invitationId must be a string");
  const invitation = await deps.store.findInvitation(invitationId);
  if (!invitation) throw new AuthError("INVITATION_NOT_FOUND", "No such invitation");
  const found = await deps.store.findMember(invitation.organizationId, user.id);
  if (!found) throw new AuthError("INVITATION_NOT_FOUND", "No such invitation");
  if (!roleGrants(deps.options.roles, found.role, { invitation: ["cancel"] })) throw forbidden();
  const settled = await deps.store.settleInvitation(invitation.id, "canceled");
  if (!settled) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
  await emit(
    deps.ctx,
    "InvitationCanceled",
    { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
    meta,
  );
  return toInvitationView(settled);
}

/** The organization's invitations (any member), or without one the pending invitations of the user's address. */
export async function listInvitations(
  deps: OrganizationDeps,
  user: UserRecord,
  ref: OrganizationRef | null,
): Promise<InvitationView[]> {
  if (ref === null) {
    const mine = await deps.store.listInvitationsByEmail(user.email);
    const now = clockNow(deps);
    return mine.filter((i) => i.expiresAt > now).map(toInvitationView);
  }
  const { organization } = await membership(deps, user.id, ref);
  return (await deps.store.listInvitations(organization.id)).map(toInvitationView);
}
