/** The organizations port (`organizations()`): `OrganizationStore` and what its methods take and answer. */
import type { InvitationRecord, MemberRecord, OrganizationRecord, UserRecord } from "./records.ts";

/** What `OrganizationStore.create` did. */
export type OrganizationCreateResult = "created" | "slug-taken" | "owner-gone";

/** The fields `OrganizationStore.update` may change. */
export type OrganizationPatch = Partial<Pick<OrganizationRecord, "name" | "slug" | "logo" | "metadata">>;

/** What `OrganizationStore.addMember` did. */
export type MemberAddResult = "added" | "exists" | "limit" | "organization-gone" | "user-gone";

/** What a write guarded by the last-owner rule did: the member as written (or removed), or why nothing changed. */
export type OwnerGuardedResult =
  | { ok: true; member: MemberRecord; previousRole: string }
  | { ok: false; reason: "not-found" | "last-owner" };

/** What `OrganizationStore.acceptInvitation` did. */
export type AcceptInvitationResult =
  | { ok: true; member: MemberRecord; invitation: InvitationRecord }
  | { ok: false; reason: "not-found" | "not-pending" | "expired" | "wrong-email" | "exists" | "limit" };

/** Who accepts an invitation: the new member row's id and time, the user and their (verified) email. */
export interface InvitationAcceptance {
  memberId: string;
  userId: string;
  email: string;
  at: Date;
}

/**
 * Organizations, their members and invitations (`organizations()`). Every write that could break "every
 * organization has an owner" (a member with the role `"owner"`) or "one membership per user and organization" decides in one atomic step: of a
 * parallel demotion and leave of an organization's last two owners one answers `"last-owner"`, and of two parallel
 * accepts of one invitation exactly one adds the member.
 */
export interface OrganizationStore {
  /** Inserts the organization and its first member (an owner) together; nothing when the slug is taken or the user is gone. */
  create(organization: OrganizationRecord, owner: MemberRecord): Promise<OrganizationCreateResult>;
  findById(id: string): Promise<OrganizationRecord | null>;
  findBySlug(slug: string): Promise<OrganizationRecord | null>;
  /** Applies the patch; null when the organization is gone, `"slug-taken"` when another one has the new slug. */
  update(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | "slug-taken" | null>;
  /**
   * Deletes the organization with its members, invitations and API keys (`ApiKeyRecord.organizationId`), and clears
   * it as the active organization of every session, in one atomic step. False when it was already gone.
   */
  delete(id: string): Promise<boolean>;
  /** The user's memberships with their organizations, oldest membership first. */
  listByUser(userId: string): Promise<Array<{ organization: OrganizationRecord; member: MemberRecord }>>;
  findMember(organizationId: string, userId: string): Promise<MemberRecord | null>;
  /** The members with their users (one read), oldest first. */
  listMembers(organizationId: string): Promise<Array<{ member: MemberRecord; user: UserRecord }>>;
  /**
   * Adds a member unless the user is one already (`"exists"`), the organization has `limit` members (`"limit"`,
   * counted in the same step, so N parallel adds at the limit minus one admit one), or either side is gone.
   */
  addMember(member: MemberRecord, limit: number | null): Promise<MemberAddResult>;
  /**
   * Sets the member's role. Moving the last `owner` to another role answers `"last-owner"` and changes nothing,
   * decided atomically with every other owner-changing write of the organization.
   */
  updateMemberRole(organizationId: string, userId: string, role: string): Promise<OwnerGuardedResult>;
  /** Removes the member, unless they are its last `owner` (`"last-owner"`, atomically as `updateMemberRole`). */
  removeMember(organizationId: string, userId: string): Promise<OwnerGuardedResult>;
  /** Inserts the invitation; false when the organization is gone. */
  createInvitation(invitation: InvitationRecord): Promise<boolean>;
  findInvitation(id: string): Promise<InvitationRecord | null>;
  /** The newest pending invitation of `email` to the organization, expired or not; null when none. */
  findPendingInvitation(organizationId: string, email: string): Promise<InvitationRecord | null>;
  /** Moves a pending invitation's expiry (a resend); null when it is no longer pending. */
  renewInvitation(id: string, expiresAt: Date): Promise<InvitationRecord | null>;
  /** The organization's invitations of every status, newest first. */
  listInvitations(organizationId: string): Promise<InvitationRecord[]>;
  /** The pending invitations of an email address, newest first. */
  listInvitationsByEmail(email: string): Promise<InvitationRecord[]>;
  /**
   * Accepts a pending, unexpired (`expiresAt > at`) invitation of `acceptance.email`: marks it accepted and adds
   * the member with its role in one atomic step, so it is single-use (of N parallel accepts exactly one adds a
   * member). `"exists"` (the user is a member already) and `"limit"` change nothing.
   */
  acceptInvitation(id: string, acceptance: InvitationAcceptance, limit: number | null): Promise<AcceptInvitationResult>;
  /** Moves a pending invitation to `status` (rejected or canceled); null when it was not pending. */
  settleInvitation(id: string, status: "rejected" | "canceled"): Promise<InvitationRecord | null>;
  /**
   * Sets the session's active organization, only while its user (`userId`) is a member of it (checked in the same
   * step); null clears it. False when the session is not the user's or the user is not a member.
   */
  setActive(sessionId: string, userId: string, organizationId: string | null): Promise<boolean>;
}
