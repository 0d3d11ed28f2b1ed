import type { AuthContext } from "../context/context.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { MemberRecord, OrganizationRecord, Permissions, UserRecord } from "../ports/records.ts";
import type { OrganizationStore } from "../ports/store.ts";
import type { ResolvedOrganizationsOptions } from "./options.ts";
import { roleGrants } from "../kernel/role-table.ts";
import { checkStatements, statementsOf } from "./roles.ts";
import { membership, type OrganizationDeps } from "./access.ts";
import {
  checkStatementsInput,
  type CreateOrganizationInput,
  type InviteMemberInput,
  type OrganizationRef,
  type UpdateOrganizationInput,
} from "./input.ts";
import { createOrganization, deleteOrganization, updateOrganization } from "./lifecycle.ts";
import { acceptInvitation, cancelInvitation, inviteMember, listInvitations, rejectInvitation } from "./invitations.ts";
import { addMember, leaveOrganization, removeMember, updateMemberRole } from "./members.ts";
import { notFound } from "./refusals.ts";
import {
  toInvitationView,
  toMemberView,
  toOrganizationView,
  type FullOrganizationView,
  type InvitationView,
  type MembershipView,
  type MemberView,
  type OrganizationView,
} from "./view.ts";

/**
 * Organizations (`organizations()`): creation, members, roles and permission statements, invitations by email.
 * Every check of a role is made against the store's current membership row; the writes that guard the invariants
 * ("every organization has an owner", single-use invitations) are single atomic store calls.
 *
 * @example
 * const { service } = auth.core.plugins.get(ORGANIZATIONS_PLUGIN_ID)!;
 * await service.hasPermission({ userId, organizationId, permissions: { project: ["create"] } });
 */
export class OrganizationService {
  /** What the steps in `access.ts`, `lifecycle.ts`, `members.ts` and `invitations.ts` work with. */
  private readonly deps: OrganizationDeps;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedOrganizationsOptions,
    private readonly store: OrganizationStore,
  ) {
    this.deps = { ctx, options, store };
  }

  /** The role names, owner first (`owner`, `admin`, `member`, then custom ones). */
  get roleNames(): string[] {
    return [...this.options.roles.keys()];
  }

  /** The statements a role grants (`{ member: ["create", ...] }`); `{}` for an unknown role. */
  statementsOf(role: string): Permissions {
    return statementsOf(this.options.roles, role);
  }

  /** Whether `role` grants every action of `permissions`. */
  roleGrants(role: string, permissions: Permissions): boolean {
    return roleGrants(this.options.roles, role, permissions);
  }

  /** Whether `permissions` is a well-formed statement (`{ resource: [actions] }`). */
  validStatements(permissions: unknown): permissions is Permissions {
    try {
      checkStatements(permissions, "permissions");
      return true;
    } catch {
      return false;
    }
  }

  /** The caller's membership of the organization (by id or slug); 404 `ORGANIZATION_NOT_FOUND` when not a member. */
  membership(
    userId: string,
    ref: OrganizationRef,
  ): Promise<{ organization: OrganizationRecord; member: MemberRecord }> {
    return membership(this.deps, userId, ref);
  }

  /** Whether `userId` is a member of the organization whose role grants every action of `permissions`. */
  async hasPermission(input: { userId: string; organizationId: string; permissions: Permissions }): Promise<boolean> {
    checkStatementsInput(input.permissions);
    if (typeof input.organizationId !== "string" || input.organizationId === "" || input.organizationId.length > 64)
      return false;
    const member = await this.store.findMember(input.organizationId, input.userId);
    return member !== null && roleGrants(this.options.roles, member.role, input.permissions);
  }

  /**
   * Creates an organization with `user` as its owner. `checkAllowed`: the HTTP route asks `allowUserToCreate`;
   * `auth.api.createOrganization` does not.
   */
  create(
    user: UserRecord,
    input: CreateOrganizationInput,
    meta: RequestMeta,
    options: { checkAllowed: boolean },
  ): Promise<OrganizationView> {
    return createOrganization(this.deps, user, input, meta, options);
  }

  update(user: UserRecord, input: UpdateOrganizationInput, meta: RequestMeta): Promise<OrganizationView> {
    return updateOrganization(this.deps, user, input, meta);
  }

  /** Deletes the organization with its members and invitations (`organization: ["delete"]`: owners by default). */
  delete(user: UserRecord, organizationId: string, meta: RequestMeta): Promise<{ success: true }> {
    return deleteOrganization(this.deps, user, organizationId, meta);
  }

  /** The user's organizations with their role in each, oldest membership first. */
  async list(userId: string): Promise<MembershipView[]> {
    return (await this.store.listByUser(userId)).map(({ organization, member }) => ({
      ...toOrganizationView(organization),
      role: member.role,
    }));
  }

  /** The organization with its members and pending invitations; any member may read it. */
  async getFull(userId: string, ref: OrganizationRef): Promise<FullOrganizationView> {
    const { organization } = await this.membership(userId, ref);
    const [members, invitations] = await Promise.all([
      this.store.listMembers(organization.id),
      this.store.listInvitations(organization.id),
    ]);
    return {
      ...toOrganizationView(organization),
      members: members.map(({ member, user }) => toMemberView(member, user)),
      invitations: invitations.filter((i) => i.status === "pending").map(toInvitationView),
    };
  }

  /** Stores the session's active organization (null clears it); only a member can make one active. */
  async setActive(
    user: UserRecord,
    sessionId: string,
    ref: OrganizationRef | null,
    meta: RequestMeta,
  ): Promise<OrganizationView | null> {
    if (ref === null) {
      await this.store.setActive(sessionId, user.id, null);
      await emit(this.ctx, "ActiveOrganizationChanged", { userId: user.id, sessionId, organizationId: null }, meta);
      return null;
    }
    const { organization } = await this.membership(user.id, ref);
    // The membership is checked again in the write itself: a removal landing between the read and the write wins.
    if (!(await this.store.setActive(sessionId, user.id, organization.id))) throw notFound();
    await emit(
      this.ctx,
      "ActiveOrganizationChanged",
      { userId: user.id, sessionId, organizationId: organization.id },
      meta,
    );
    return toOrganizationView(organization);
  }

  /**
   * Invites an address (`invitation: ["create"]`); only an owner may invite an owner. A pending invitation of the
   * address is `409 INVITATION_ALREADY_SENT` unless `resend`, which sends it again with a new expiry.
   */
  invite(user: UserRecord, input: InviteMemberInput, meta: RequestMeta): Promise<InvitationView> {
    return inviteMember(this.deps, user, input, meta);
  }

  /**
   * Accepts an invitation: only by a signed-in user whose verified email is the invitee's; single-use (of two
   * parallel accepts one wins); expired, canceled, rejected or accepted ones are refused.
   */
  accept(
    user: UserRecord,
    invitationId: string,
    meta: RequestMeta,
  ): Promise<{ invitation: InvitationView; member: MemberView }> {
    return acceptInvitation(this.deps, user, invitationId, meta);
  }

  /** Rejects an invitation: the same rules as accepting it. */
  reject(user: UserRecord, invitationId: string, meta: RequestMeta): Promise<InvitationView> {
    return rejectInvitation(this.deps, user, invitationId, meta);
  }

  /** Cancels a pending invitation (`invitation: ["cancel"]`). */
  cancel(user: UserRecord, invitationId: string, meta: RequestMeta): Promise<InvitationView> {
    return cancelInvitation(this.deps, user, invitationId, meta);
  }

  /** The organization's invitations (any member), or without one the pending invitations of the user's address. */
  listInvitations(user: UserRecord, ref: OrganizationRef | null): Promise<InvitationView[]> {
    return listInvitations(this.deps, user, ref);
  }

  /**
   * Changes a member's role (`member: ["update"]`). Only an owner may make someone an owner or change an owner's
   * role; the last owner cannot be demoted (409 `LAST_OWNER`).
   */
  updateMemberRole(
    user: UserRecord,
    input: { organizationId: string; memberId: string; role: string },
    meta: RequestMeta,
  ): Promise<MemberView> {
    return updateMemberRole(this.deps, user, input, meta);
  }

  /** Removes a member (`member: ["delete"]`); only an owner removes an owner, and never the last one (409). */
  removeMember(
    user: UserRecord,
    input: { organizationId: string; memberIdOrEmail: string },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    return removeMember(this.deps, user, input, meta);
  }

  /** Leaves the organization; the last owner cannot (409 `LAST_OWNER`: make someone else owner, or delete it). */
  leave(user: UserRecord, organizationId: string, meta: RequestMeta): Promise<{ success: true }> {
    return leaveOrganization(this.deps, user, organizationId, meta);
  }

  /** Adds a user as a member directly (trusted server code: `auth.api.addMember`), within the membership limit. */
  addMember(input: { userId: string; organizationId: string; role: string }, meta: RequestMeta): Promise<MemberView> {
    return addMember(this.deps, input, meta);
  }

  /** The member's role in the organization, or null when not a member (the `/token` claims read it). */
  async roleOf(userId: string, organizationId: string): Promise<string | null> {
    return (await this.store.findMember(organizationId, userId))?.role ?? null;
  }
}
