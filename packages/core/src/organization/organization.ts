import type { AuthContext } from "../context/context.ts";
import { randomId } from "../crypto/crypto.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { normalizeEmail, resolveCallbackUrl } from "../kernel/validation.ts";
import type {
  InvitationRecord,
  JsonObject,
  MemberRecord,
  OrganizationRecord,
  Permissions,
  UserRecord,
} from "../ports/records.ts";
import type { OrganizationPatch, OrganizationStore } from "../ports/store.ts";
import { isoTime } from "../session/iso-time.ts";
import { toUserView } from "../session/session.ts";
import type { MemberAddPath, OrganizationDraft, ResolvedOrganizationsOptions } from "./options.ts";
import { roleGrants } from "../kernel/role-table.ts";
import { checkStatements, OWNER_ROLE, statementsOf } from "./roles.ts";

/** An organization as the API shows it. */
export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  metadata: JsonObject;
  createdAt: string;
}

/** A member as the API shows it, with the public part of their user. */
export interface MemberView {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; email: string; name: string | null; image: string | null };
}

/** An invitation as the API shows it. */
export interface InvitationView {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  inviterId: string;
  status: InvitationRecord["status"];
  expiresAt: string;
  createdAt: string;
}

/** An organization with its members and pending invitations (`/organization/get-full-organization`). */
export interface FullOrganizationView extends OrganizationView {
  members: MemberView[];
  invitations: InvitationView[];
}

/** One of the user's organizations with their role in it (`/organization/list`). */
export interface MembershipView extends OrganizationView {
  role: string;
}

/** `POST /organization/create`. */
export interface CreateOrganizationInput {
  name: string;
  slug: string;
  logo?: string | null;
  metadata?: JsonObject;
}

/** `POST /organization/update`: the fields to change under `data`. */
export interface UpdateOrganizationInput {
  organizationId: string;
  data: { name?: string; slug?: string; logo?: string | null; metadata?: JsonObject };
}

/** `POST /organization/invite-member`. `resend`: send a pending invitation of this address again (new expiry). */
export interface InviteMemberInput {
  organizationId: string;
  email: string;
  role: string;
  resend?: boolean;
}

/** An organization named by id or by slug. */
export interface OrganizationRef {
  organizationId?: string | null;
  organizationSlug?: string | null;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_METADATA_BYTES = 8 * 1024;

function toOrganizationView(o: OrganizationRecord): OrganizationView {
  return { id: o.id, name: o.name, slug: o.slug, logo: o.logo, metadata: o.metadata, createdAt: isoTime(o.createdAt) };
}

function toMemberView(m: MemberRecord, u: UserRecord): MemberView {
  return {
    id: m.id,
    organizationId: m.organizationId,
    userId: m.userId,
    role: m.role,
    createdAt: isoTime(m.createdAt),
    user: { id: u.id, email: u.email, name: u.name, image: u.image },
  };
}

/** An invitation as the API shows it. */
function toInvitationView(i: InvitationRecord): InvitationView {
  return {
    id: i.id,
    organizationId: i.organizationId,
    email: i.email,
    role: i.role,
    inviterId: i.inviterId,
    status: i.status,
    expiresAt: isoTime(i.expiresAt),
    createdAt: isoTime(i.createdAt),
  };
}

const notFound = () => new AuthError("ORGANIZATION_NOT_FOUND", "No such organization, or you are not a member of it");
const forbidden = () => new AuthError("INSUFFICIENT_PERMISSIONS", "Your role in this organization does not allow this");

function checkName(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > 128)
    throw invalidField(field, `${field} must be a non-empty string of at most 128 characters`);
  return value.trim();
}

function checkSlug(value: unknown, field: string): string {
  if (typeof value !== "string" || !SLUG.test(value))
    throw invalidField(field, `${field} must be 1 to 64 lower-case letters, digits and dashes (not at either end)`);
  return value;
}

function checkLogo(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || value.length > 2048)
    throw invalidField(field, `${field} must be a URL of at most 2048 characters, or null`);
  return value;
}

function checkMetadata(value: unknown, field: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalidField(field, `${field} must be an object`);
  if (new TextEncoder().encode(JSON.stringify(value)).length > MAX_METADATA_BYTES)
    throw invalidField(field, `${field} must be at most 8 KB of JSON`);
  return structuredClone(value as JsonObject);
}

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
  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedOrganizationsOptions,
    private readonly store: OrganizationStore,
  ) {}

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

  private checkRole(role: unknown, field = "role"): string {
    if (typeof role !== "string" || !this.options.roles.has(role))
      throw new AuthError("ROLE_NOT_FOUND", `${field} must be one of: ${this.roleNames.join(", ")}`, {
        details: [{ path: field, message: "unknown role" }],
      });
    return role;
  }

  private now(): Date {
    return new Date(this.ctx.clock.now());
  }

  /** The caller's membership of the organization (by id or slug); 404 `ORGANIZATION_NOT_FOUND` when not a member. */
  async membership(
    userId: string,
    ref: OrganizationRef,
  ): Promise<{ organization: OrganizationRecord; member: MemberRecord }> {
    const organization = await this.resolve(ref);
    if (!organization) throw notFound();
    const member = await this.store.findMember(organization.id, userId);
    if (!member) throw notFound();
    return { organization, member };
  }

  private async resolve(ref: OrganizationRef): Promise<OrganizationRecord | null> {
    if (typeof ref.organizationId === "string" && ref.organizationId !== "")
      return ref.organizationId.length > 64 ? null : this.store.findById(ref.organizationId);
    if (typeof ref.organizationSlug === "string" && ref.organizationSlug !== "")
      return SLUG.test(ref.organizationSlug) ? this.store.findBySlug(ref.organizationSlug) : null;
    throw invalidField("organizationId", "organizationId (or organizationSlug) is required");
  }

  /** A membership whose role grants `permissions`: 404 for outsiders, 403 `INSUFFICIENT_PERMISSIONS` for members. */
  private async authorized(userId: string, ref: OrganizationRef, permissions: Permissions) {
    const found = await this.membership(userId, ref);
    if (!roleGrants(this.options.roles, found.member.role, permissions)) throw forbidden();
    return found;
  }

  /** Whether `userId` is a member of the organization whose role grants every action of `permissions`. */
  async hasPermission(input: { userId: string; organizationId: string; permissions: Permissions }): Promise<boolean> {
    checkStatementsInput(input.permissions);
    if (typeof input.organizationId !== "string" || input.organizationId === "" || input.organizationId.length > 64)
      return false;
    const member = await this.store.findMember(input.organizationId, input.userId);
    return member !== null && roleGrants(this.options.roles, member.role, input.permissions);
  }

  private async beforeMemberAdded(member: MemberRecord, path: MemberAddPath, user: UserRecord): Promise<void> {
    const hook = this.options.hooks.beforeMemberAdded;
    if (!hook) return;
    const answer = await runHook("beforeMemberAdded", () =>
      hook(
        { organizationId: member.organizationId, userId: member.userId, role: member.role },
        { path, user: toUserView(user) },
      ),
    );
    if (answer === false) throw new AuthError("MEMBER_ADD_REJECTED", "This member may not be added");
  }

  /**
   * Creates an organization with `user` as its owner. `checkAllowed`: the HTTP route asks `allowUserToCreate`;
   * `auth.api.createOrganization` does not.
   */
  async create(
    user: UserRecord,
    input: CreateOrganizationInput,
    meta: RequestMeta,
    options: { checkAllowed: boolean },
  ): Promise<OrganizationView> {
    let draft: OrganizationDraft = {
      name: checkName(input.name, "name"),
      slug: checkSlug(input.slug, "slug"),
      logo: input.logo === undefined ? null : checkLogo(input.logo, "logo"),
      metadata: input.metadata === undefined ? {} : checkMetadata(input.metadata, "metadata"),
    };
    if (options.checkAllowed) {
      const allow = this.options.allowUserToCreate;
      const allowed =
        typeof allow === "boolean" ? allow : await runHook("allowUserToCreate", () => allow(toUserView(user)));
      if (allowed !== true) throw new AuthError("ORGANIZATION_CREATION_DISABLED", "You may not create organizations");
    }
    const hook = this.options.hooks.beforeOrganizationCreated;
    if (hook) {
      const answer = await runHook("beforeOrganizationCreated", () =>
        hook(structuredClone(draft), { user: toUserView(user) }),
      );
      if (answer === false)
        throw new AuthError("ORGANIZATION_CREATION_REJECTED", "This organization may not be created");
      if (answer !== null && typeof answer === "object") {
        draft = {
          name: answer.name === undefined ? draft.name : checkHookValue(() => checkName(answer.name, "name")),
          slug: answer.slug === undefined ? draft.slug : checkHookValue(() => checkSlug(answer.slug, "slug")),
          logo: answer.logo === undefined ? draft.logo : checkHookValue(() => checkLogo(answer.logo, "logo")),
          metadata:
            answer.metadata === undefined
              ? draft.metadata
              : checkHookValue(() => checkMetadata(answer.metadata, "metadata")),
        };
      }
    }
    const at = this.now();
    const organization: OrganizationRecord = { id: randomId(this.ctx.random), ...draft, createdAt: at };
    const owner: MemberRecord = {
      id: randomId(this.ctx.random),
      organizationId: organization.id,
      userId: user.id,
      role: OWNER_ROLE,
      createdAt: at,
    };
    await this.beforeMemberAdded(owner, "create-organization", user);
    const result = await this.store.create(organization, owner);
    if (result === "slug-taken")
      throw new AuthError("ORGANIZATION_SLUG_TAKEN", "Another organization has this slug", {
        details: [{ path: "slug", message: "taken" }],
      });
    if (result === "owner-gone") throw new AuthError("SESSION_NOT_FOUND", "The account no longer exists");
    await emit(
      this.ctx,
      "OrganizationCreated",
      { userId: user.id, organizationId: organization.id, slug: organization.slug },
      meta,
      at,
    );
    await emit(
      this.ctx,
      "MemberAdded",
      { userId: user.id, organizationId: organization.id, memberUserId: user.id, role: OWNER_ROLE, via: "create" },
      meta,
      at,
    );
    return toOrganizationView(organization);
  }

  async update(user: UserRecord, input: UpdateOrganizationInput, meta: RequestMeta): Promise<OrganizationView> {
    const data = input.data;
    if (data === null || typeof data !== "object") throw invalidField("data", "data must be an object");
    const patch: OrganizationPatch = {};
    if (data.name !== undefined) patch.name = checkName(data.name, "data.name");
    if (data.slug !== undefined) patch.slug = checkSlug(data.slug, "data.slug");
    if (data.logo !== undefined) patch.logo = checkLogo(data.logo, "data.logo");
    if (data.metadata !== undefined) patch.metadata = checkMetadata(data.metadata, "data.metadata");
    const { organization } = await this.authorized(
      user.id,
      { organizationId: input.organizationId },
      { organization: ["update"] },
    );
    const fields = Object.keys(patch);
    if (fields.length === 0) return toOrganizationView(organization);
    const updated = await this.store.update(organization.id, patch);
    if (updated === null) throw notFound();
    if (updated === "slug-taken")
      throw new AuthError("ORGANIZATION_SLUG_TAKEN", "Another organization has this slug", {
        details: [{ path: "data.slug", message: "taken" }],
      });
    await emit(this.ctx, "OrganizationUpdated", { userId: user.id, organizationId: organization.id, fields }, meta);
    return toOrganizationView(updated);
  }

  /** Deletes the organization with its members and invitations (`organization: ["delete"]`: owners by default). */
  async delete(user: UserRecord, organizationId: string, meta: RequestMeta): Promise<{ success: true }> {
    const { organization } = await this.authorized(user.id, { organizationId }, { organization: ["delete"] });
    if (!(await this.store.delete(organization.id))) throw notFound();
    await emit(this.ctx, "OrganizationDeleted", { userId: user.id, organizationId: organization.id }, meta);
    return { success: true };
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
  async invite(user: UserRecord, input: InviteMemberInput, meta: RequestMeta): Promise<InvitationView> {
    if (typeof input.email !== "string") throw invalidField("email", "email must be a string");
    const email = normalizeEmail(input.email);
    const role = this.checkRole(input.role);
    const { organization, member } = await this.authorized(
      user.id,
      { organizationId: input.organizationId },
      { invitation: ["create"] },
    );
    if (role === OWNER_ROLE && member.role !== OWNER_ROLE) throw forbidden();
    const invitee = await this.ctx.store.users.findByEmail(email);
    if (invitee && (await this.store.findMember(organization.id, invitee.id)))
      throw new AuthError("ALREADY_A_MEMBER", "This address belongs to a member already");
    const at = this.now();
    const expiresAt = new Date(at.getTime() + this.options.invitationExpiresInMs);
    const pending = await this.store.findPendingInvitation(organization.id, email);
    let invitation: InvitationRecord;
    if (pending) {
      if (input.resend !== true)
        throw new AuthError(
          "INVITATION_ALREADY_SENT",
          "This address has a pending invitation; send it again with resend: true",
        );
      await this.ctx.sendLimits.enforce("organization-invitation", email, meta, invitee?.id ?? null);
      const renewed = await this.store.renewInvitation(pending.id, expiresAt);
      if (!renewed) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered meanwhile");
      invitation = renewed;
      await emit(
        this.ctx,
        "InvitationResent",
        { userId: user.id, organizationId: organization.id, invitationId: invitation.id, identifier: email },
        meta,
        at,
      );
    } else {
      await this.ctx.sendLimits.enforce("organization-invitation", email, meta, invitee?.id ?? null);
      invitation = {
        id: randomId(this.ctx.random),
        organizationId: organization.id,
        email,
        role,
        inviterId: user.id,
        status: "pending",
        expiresAt,
        createdAt: at,
      };
      if (!(await this.store.createInvitation(invitation))) throw notFound();
      await emit(
        this.ctx,
        "InvitationCreated",
        { userId: user.id, organizationId: organization.id, invitationId: invitation.id, identifier: email, role },
        meta,
        at,
      );
    }
    const url = new URL(
      resolveCallbackUrl(this.ctx.config, this.options.invitationURL, `${this.ctx.config.baseUrl}/accept-invitation`),
    );
    url.searchParams.set("invitationId", invitation.id);
    this.ctx.mailer.sendInBackground(meta, email, "organization-invitation", {
      url: url.toString(),
      email,
      organizationName: organization.name,
      inviterName: user.name ?? user.email,
      role: invitation.role,
      expiresInHours: String(Math.max(1, Math.round(this.options.invitationExpiresInMs / 3_600_000))),
    });
    return toInvitationView(invitation);
  }

  /** The invitation, when `user` is its invitee with a verified address: 404 otherwise (never tells whose it is). */
  private async invitationFor(user: UserRecord, invitationId: unknown): Promise<InvitationRecord> {
    if (typeof invitationId !== "string" || invitationId === "" || invitationId.length > 64)
      throw invalidField("invitationId", "invitationId must be a string");
    const invitation = await this.store.findInvitation(invitationId);
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
  async accept(
    user: UserRecord,
    invitationId: string,
    meta: RequestMeta,
  ): Promise<{ invitation: InvitationView; member: MemberView }> {
    const invitation = await this.invitationFor(user, invitationId);
    const at = this.now();
    const draft: MemberRecord = {
      id: randomId(this.ctx.random),
      organizationId: invitation.organizationId,
      userId: user.id,
      role: invitation.role,
      createdAt: at,
    };
    if (invitation.status === "pending" && invitation.expiresAt > at)
      await this.beforeMemberAdded(draft, "accept-invitation", user);
    const result = await this.store.acceptInvitation(
      invitation.id,
      { memberId: draft.id, userId: user.id, email: user.email, at },
      this.options.membershipLimit,
    );
    if (!result.ok) throw acceptRefusal(result.reason);
    await emit(
      this.ctx,
      "InvitationAccepted",
      { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
      meta,
      at,
    );
    await emit(
      this.ctx,
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
  async reject(user: UserRecord, invitationId: string, meta: RequestMeta): Promise<InvitationView> {
    const invitation = await this.invitationFor(user, invitationId);
    if (invitation.status === "pending" && invitation.expiresAt <= this.now())
      throw new AuthError("INVITATION_EXPIRED", "The invitation expired");
    const settled = await this.store.settleInvitation(invitation.id, "rejected");
    if (!settled) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
    await emit(
      this.ctx,
      "InvitationRejected",
      { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
      meta,
    );
    return toInvitationView(settled);
  }

  /** Cancels a pending invitation (`invitation: ["cancel"]`). */
  async cancel(user: UserRecord, invitationId: string, meta: RequestMeta): Promise<InvitationView> {
    if (typeof invitationId !== "string" || invitationId === "" || invitationId.length > 64)
      throw invalidField("invitationId", "invitationId must be a string");
    const invitation = await this.store.findInvitation(invitationId);
    if (!invitation) throw new AuthError("INVITATION_NOT_FOUND", "No such invitation");
    const found = await this.store.findMember(invitation.organizationId, user.id);
    if (!found) throw new AuthError("INVITATION_NOT_FOUND", "No such invitation");
    if (!roleGrants(this.options.roles, found.role, { invitation: ["cancel"] })) throw forbidden();
    const settled = await this.store.settleInvitation(invitation.id, "canceled");
    if (!settled) throw new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
    await emit(
      this.ctx,
      "InvitationCanceled",
      { userId: user.id, organizationId: invitation.organizationId, invitationId: invitation.id },
      meta,
    );
    return toInvitationView(settled);
  }

  /** The organization's invitations (any member), or without one the pending invitations of the user's address. */
  async listInvitations(user: UserRecord, ref: OrganizationRef | null): Promise<InvitationView[]> {
    if (ref === null) {
      const mine = await this.store.listInvitationsByEmail(user.email);
      const now = this.now();
      return mine.filter((i) => i.expiresAt > now).map(toInvitationView);
    }
    const { organization } = await this.membership(user.id, ref);
    return (await this.store.listInvitations(organization.id)).map(toInvitationView);
  }

  private async target(organizationId: string, memberId: unknown, field: string): Promise<MemberRecord> {
    if (typeof memberId !== "string" || memberId === "" || memberId.length > 320)
      throw invalidField(field, `${field} must be a string`);
    const members = await this.store.listMembers(organizationId);
    const found = members.find(
      ({ member, user }) =>
        member.id === memberId || member.userId === memberId || user.email === memberId.toLowerCase(),
    );
    if (!found) throw new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
    return found.member;
  }

  /**
   * Changes a member's role (`member: ["update"]`). Only an owner may make someone an owner or change an owner's
   * role; the last owner cannot be demoted (409 `LAST_OWNER`).
   */
  async updateMemberRole(
    user: UserRecord,
    input: { organizationId: string; memberId: string; role: string },
    meta: RequestMeta,
  ): Promise<MemberView> {
    const role = this.checkRole(input.role);
    const { organization, member: actor } = await this.authorized(
      user.id,
      { organizationId: input.organizationId },
      { member: ["update"] },
    );
    const target = await this.target(organization.id, input.memberId, "memberId");
    if ((role === OWNER_ROLE || target.role === OWNER_ROLE) && actor.role !== OWNER_ROLE) throw forbidden();
    const result = await this.store.updateMemberRole(organization.id, target.userId, role);
    if (!result.ok) throw guardedRefusal(result.reason);
    await emit(
      this.ctx,
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
    const targetUser = await this.ctx.store.users.findById(target.userId);
    if (!targetUser) throw new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
    return toMemberView(result.member, targetUser);
  }

  /** Removes a member (`member: ["delete"]`); only an owner removes an owner, and never the last one (409). */
  async removeMember(
    user: UserRecord,
    input: { organizationId: string; memberIdOrEmail: string },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    const { organization, member: actor } = await this.authorized(
      user.id,
      { organizationId: input.organizationId },
      { member: ["delete"] },
    );
    const target = await this.target(organization.id, input.memberIdOrEmail, "memberIdOrEmail");
    if (target.role === OWNER_ROLE && actor.role !== OWNER_ROLE) throw forbidden();
    const result = await this.store.removeMember(organization.id, target.userId);
    if (!result.ok) throw guardedRefusal(result.reason);
    await emit(
      this.ctx,
      "MemberRemoved",
      { userId: user.id, organizationId: organization.id, memberUserId: target.userId, reason: "removed" },
      meta,
    );
    return { success: true };
  }

  /** Leaves the organization; the last owner cannot (409 `LAST_OWNER`: make someone else owner, or delete it). */
  async leave(user: UserRecord, organizationId: string, meta: RequestMeta): Promise<{ success: true }> {
    const { organization } = await this.membership(user.id, { organizationId });
    const result = await this.store.removeMember(organization.id, user.id);
    if (!result.ok) throw guardedRefusal(result.reason);
    await emit(
      this.ctx,
      "MemberRemoved",
      { userId: user.id, organizationId: organization.id, memberUserId: user.id, reason: "left" },
      meta,
    );
    return { success: true };
  }

  /** Adds a user as a member directly (trusted server code: `auth.api.addMember`), within the membership limit. */
  async addMember(
    input: { userId: string; organizationId: string; role: string },
    meta: RequestMeta,
  ): Promise<MemberView> {
    const role = this.checkRole(input.role);
    const user = await this.ctx.store.users.findById(input.userId);
    if (!user) throw new AuthError("MEMBER_NOT_FOUND", "No such user");
    const organization = await this.store.findById(input.organizationId);
    if (!organization) throw notFound();
    const member: MemberRecord = {
      id: randomId(this.ctx.random),
      organizationId: organization.id,
      userId: user.id,
      role,
      createdAt: this.now(),
    };
    await this.beforeMemberAdded(member, "add-member", user);
    const result = await this.store.addMember(member, this.options.membershipLimit);
    if (result === "exists") throw new AuthError("ALREADY_A_MEMBER", "The user is a member already");
    if (result === "limit") throw limitReached();
    if (result === "organization-gone") throw notFound();
    if (result === "user-gone") throw new AuthError("MEMBER_NOT_FOUND", "No such user");
    await emit(
      this.ctx,
      "MemberAdded",
      { userId: user.id, organizationId: organization.id, memberUserId: user.id, role, via: "api" },
      meta,
    );
    return toMemberView(member, user);
  }

  /** The member's role in the organization, or null when not a member (the `/token` claims read it). */
  async roleOf(userId: string, organizationId: string): Promise<string | null> {
    return (await this.store.findMember(organizationId, userId))?.role ?? null;
  }
}

const limitReached = () =>
  new AuthError("MEMBERSHIP_LIMIT_REACHED", "The organization has as many members as it may have");

function acceptRefusal(
  reason: "not-found" | "not-pending" | "expired" | "wrong-email" | "exists" | "limit",
): AuthError {
  switch (reason) {
    case "not-found":
      return new AuthError("INVITATION_NOT_FOUND", "No such invitation");
    case "not-pending":
      return new AuthError("INVITATION_NOT_PENDING", "The invitation was answered or canceled already");
    case "expired":
      return new AuthError("INVITATION_EXPIRED", "The invitation expired");
    case "wrong-email":
      return new AuthError("INVITATION_RECIPIENT_MISMATCH", "This invitation was sent to another address");
    case "exists":
      return new AuthError("ALREADY_A_MEMBER", "You are a member of this organization already");
    case "limit":
      return limitReached();
  }
}

function guardedRefusal(reason: "not-found" | "last-owner"): AuthError {
  return reason === "last-owner"
    ? new AuthError("LAST_OWNER", "The organization's last owner cannot leave, be removed or be demoted")
    : new AuthError("MEMBER_NOT_FOUND", "No such member of this organization");
}

/** `permissions` of a request: `{ resource: [actions] }`, 400 otherwise. */
function checkStatementsInput(permissions: unknown): asserts permissions is Permissions {
  try {
    checkStatements(permissions, "permissions");
  } catch {
    throw invalidField("permissions", "permissions must be an object of resource -> [actions]");
  }
  if (Object.keys(permissions as object).length === 0)
    throw invalidField("permissions", "permissions must name at least one resource");
}

/** A hook's value that fails the route's own checks is a hook bug: 500 without the details. */
function checkHookValue<T>(check: () => T): T {
  try {
    return check();
  } catch {
    throw new AuthError("INTERNAL_ERROR", "The beforeOrganizationCreated hook returned an invalid value");
  }
}

/** Runs an app hook: an `AuthError` passes through; any other throw becomes a message-free 500. */
async function runHook<T>(name: string, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("INTERNAL_ERROR", `The ${name} hook failed`, { cause: error });
  }
}
