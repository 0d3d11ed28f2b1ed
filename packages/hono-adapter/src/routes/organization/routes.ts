import { z } from "@hono/zod-openapi";
import { ORGANIZATIONS_PLUGIN_ID, type OrganizationService, type ValidatedSession } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { EmailField, SuccessSchema } from "../schemas.ts";

const TAG = "Organizations";

const Id = z.string().min(1).max(64);
const OrganizationIdField = Id.optional().openapi({
  description: "The organization's id; default: the session's active organization.",
});
const Metadata = z.record(z.string(), z.unknown()).openapi({ description: "App data, at most 8 KB of JSON." });
const Statements = z.record(z.string().max(32), z.array(z.string().max(32)).max(64)).openapi("PermissionStatements", {
  description: 'Resource -> actions, e.g. `{ "project": ["create", "delete"] }`.',
  example: { project: ["create"] },
});

const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    logo: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Organization");

const MembershipSchema = OrganizationSchema.extend({
  role: z.string().openapi({ description: "The caller's role in it." }),
}).openapi("OrganizationMembership");

const MemberSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    role: z.string(),
    createdAt: z.string().openapi({ format: "date-time" }),
    user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), image: z.string().nullable() }),
  })
  .openapi("OrganizationMember");

const InvitationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    email: z.string(),
    role: z.string(),
    inviterId: z.string(),
    status: z.enum(["pending", "accepted", "rejected", "canceled"]),
    expiresAt: z.string().openapi({ format: "date-time" }),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("OrganizationInvitation");

const FullOrganizationSchema = OrganizationSchema.extend({
  members: z.array(MemberSchema),
  invitations: z.array(InvitationSchema).openapi({ description: "The pending invitations." }),
}).openapi("FullOrganization");

const InvitationIdBody = z.object({ invitationId: Id });

const NOT_MEMBER =
  "An organization the caller is not a member of answers 404 `ORGANIZATION_NOT_FOUND` (whether or not it exists).";

/** The organization a request names, or the session's active one. */
const orgOf = (given: string | undefined, session: ValidatedSession): string =>
  given ?? session.sessionRecord.activeOrganizationId ?? "";

/** The description's sentence of what a route needs, with the roles that hold it under the configured definitions. */
function required(service: OrganizationService, statement: string): string {
  const holders = service.roleNames.filter((role) => {
    const [resource, action] = statement.split(":") as [string, string];
    return service.statementsOf(role)[resource]?.includes(action) === true;
  });
  return `Needs \`${statement}\` (here: ${holders.map((r) => `\`${r}\``).join(", ") || "no role"}; 403 \`INSUFFICIENT_PERMISSIONS\` otherwise).`;
}

type Register = (app: AuthApp, tools: RequestTools, service: OrganizationService) => void;

const registerOrganizationCrud: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/create",
      rateLimit: { window: "1m", max: 10 },
      operationId: "createOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Create an organization",
      description:
        "Creates an organization with the caller as its `owner` and makes it the session's active organization (unless `keepCurrentActiveOrganization`). The slug is unique (409 `ORGANIZATION_SLUG_TAKEN`). `allowUserToCreate` may refuse (403 `ORGANIZATION_CREATION_DISABLED`), and so may the `beforeOrganizationCreated` and `beforeMemberAdded` hooks (403). Emits `OrganizationCreated` and `MemberAdded`.",
      body: z.object({
        name: z.string().max(128),
        slug: z.string().max(64).openapi({ description: "Lower-case letters, digits and dashes; unique." }),
        logo: z.string().max(2048).nullable().optional(),
        metadata: Metadata.optional(),
        keepCurrentActiveOrganization: z.boolean().optional(),
      }),
      response: { schema: OrganizationSchema, description: "The new organization" },
      errors: [403, 409],
    },
    async (c, { body, session }) => {
      const { keepCurrentActiveOrganization, ...input } = body;
      const meta = tools.meta(c);
      const created = await service.create(session.userRecord, input, meta, { checkAllowed: true });
      if (keepCurrentActiveOrganization !== true)
        await service.setActive(session.userRecord, session.session.id, { organizationId: created.id }, meta);
      return c.json(created);
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/update",
      rateLimit: { window: "1m", max: 30 },
      operationId: "updateOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Update an organization",
      description: `Changes the name, slug, logo or metadata given in \`data\`. ${required(service, "organization:update")} ${NOT_MEMBER} Emits \`OrganizationUpdated\`.`,
      body: z.object({
        organizationId: OrganizationIdField,
        data: z.object({
          name: z.string().max(128).optional(),
          slug: z.string().max(64).optional(),
          logo: z.string().max(2048).nullable().optional(),
          metadata: Metadata.optional(),
        }),
      }),
      response: { schema: OrganizationSchema, description: "The organization as updated" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.update(
          session.userRecord,
          { organizationId: orgOf(body.organizationId, session), data: body.data },
          tools.meta(c),
        ),
      ),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/delete",
      rateLimit: { window: "1m", max: 10 },
      operationId: "deleteOrganization",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Delete an organization",
      description: `Deletes the organization with its members and invitations, and clears it as every session's active organization. ${required(service, "organization:delete")} ${NOT_MEMBER} Emits \`OrganizationDeleted\`.`,
      body: z.object({ organizationId: Id }),
      response: { schema: SuccessSchema, description: "Deleted" },
      errors: [403, 404],
    },
    async (c, { body, session }) =>
      c.json(await service.delete(session.userRecord, body.organizationId, tools.meta(c))),
  );
};

const registerOrganizationReads: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/organization/list",
      operationId: "listOrganizations",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "The caller's organizations",
      description: "Every organization the caller is a member of, with their role in it, oldest membership first.",
      response: { schema: z.array(MembershipSchema).openapi("OrganizationList"), description: "The organizations" },
    },
    async (c, { session }) => c.json(await service.list(session.userRecord.id)),
  );
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/organization/get-full-organization",
      operationId: "getFullOrganization",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "An organization with its members and pending invitations",
      description: `By \`organizationId\` or \`organizationSlug\`, else the session's active organization. Any member may read it. ${NOT_MEMBER}`,
      query: z.object({ organizationId: Id.optional(), organizationSlug: z.string().max(64).optional() }),
      response: { schema: FullOrganizationSchema, description: "The organization" },
      errors: [404],
    },
    async (c, { query, session }) => {
      const ref = query.organizationSlug
        ? { organizationSlug: query.organizationSlug }
        : { organizationId: orgOf(query.organizationId, session) };
      return c.json(await service.getFull(session.userRecord.id, ref));
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/set-active",
      rateLimit: { window: "1m", max: 60 },
      operationId: "setActiveOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Set the session's active organization",
      description: `Stores the organization on the session (\`session.activeOrganizationId\`; \`/token\` JWTs then carry \`org_id\` and \`org_role\`); \`organizationId: null\` clears it. Only a member can make an organization active; the membership is checked in the same write. ${NOT_MEMBER} Emits \`ActiveOrganizationChanged\`.`,
      body: z.object({
        organizationId: Id.nullable().optional(),
        organizationSlug: z.string().max(64).optional(),
      }),
      response: {
        schema: OrganizationSchema.nullable().openapi("ActiveOrganization"),
        description: "The active organization, or null",
      },
      errors: [404],
    },
    async (c, { body, session }) => {
      const ref =
        body.organizationSlug !== undefined
          ? { organizationSlug: body.organizationSlug }
          : typeof body.organizationId === "string"
            ? { organizationId: body.organizationId }
            : null;
      return c.json(await service.setActive(session.userRecord, session.session.id, ref, tools.meta(c)));
    },
  );
};

const registerInvitationWrites: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/invite-member",
      rateLimit: { window: "1m", max: 20 },
      operationId: "inviteMember",
      tag: TAG,
      authenticated: true,
      sendsEmail: true,
      summary: "Invite someone by email",
      description: `Emails an invitation link (\`invitationURL\` with \`?invitationId=...\`) valid for \`invitationExpiresIn\`; the invitee signs in with that address (verified) and accepts or rejects it. ${required(service, "invitation:create")} Only an owner may invite an \`owner\`. A member's address is 409 \`ALREADY_A_MEMBER\`; an address with a pending invitation is 409 \`INVITATION_ALREADY_SENT\` unless \`resend: true\`, which sends it again with a new expiry. An unknown role is 400 \`ROLE_NOT_FOUND\`. ${NOT_MEMBER} Emits \`InvitationCreated\` or \`InvitationResent\`.`,
      body: z.object({
        email: EmailField,
        role: z.string().max(32),
        organizationId: OrganizationIdField,
        resend: z.boolean().optional(),
      }),
      response: { schema: InvitationSchema, description: "The invitation" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.invite(
          session.userRecord,
          {
            email: body.email,
            role: body.role,
            organizationId: orgOf(body.organizationId, session),
            ...(body.resend === undefined ? {} : { resend: body.resend }),
          },
          tools.meta(c),
        ),
      ),
  );
  const ANSWER =
    "Only a signed-in user whose email is the invitee's (403 `INVITATION_RECIPIENT_MISMATCH`) and verified (403 `EMAIL_NOT_VERIFIED`). Single-use: an invitation answered, canceled or accepted already is 409 `INVITATION_NOT_PENDING`; an expired one 400 `INVITATION_EXPIRED`; an unknown one 404 `INVITATION_NOT_FOUND`.";
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/accept-invitation",
      rateLimit: { window: "1m", max: 10 },
      operationId: "acceptInvitation",
      tag: TAG,
      authenticated: true,
      summary: "Accept an invitation",
      description: `Adds the caller as a member with the invitation's role and spends the invitation, in one atomic step (of two accepts at once exactly one adds the member). ${ANSWER} A member already: 409 \`ALREADY_A_MEMBER\`; the membership limit: 409 \`MEMBERSHIP_LIMIT_REACHED\`; the \`beforeMemberAdded\` hook may refuse (403). Emits \`InvitationAccepted\` and \`MemberAdded\`.`,
      body: InvitationIdBody,
      response: {
        schema: z.object({ invitation: InvitationSchema, member: MemberSchema }).openapi("AcceptedInvitation"),
        description: "The accepted invitation and the new membership",
      },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) => c.json(await service.accept(session.userRecord, body.invitationId, tools.meta(c))),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/reject-invitation",
      rateLimit: { window: "1m", max: 10 },
      operationId: "rejectInvitation",
      tag: TAG,
      authenticated: true,
      summary: "Reject an invitation",
      description: `Marks the invitation rejected. ${ANSWER} Emits \`InvitationRejected\`.`,
      body: InvitationIdBody,
      response: { schema: InvitationSchema, description: "The rejected invitation" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) => c.json(await service.reject(session.userRecord, body.invitationId, tools.meta(c))),
  );
};

const registerInvitationReads: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/cancel-invitation",
      rateLimit: { window: "1m", max: 30 },
      operationId: "cancelInvitation",
      tag: TAG,
      authenticated: true,
      summary: "Cancel an invitation",
      description: `Cancels a pending invitation of the organization: it can no longer be accepted. ${required(service, "invitation:cancel")} Not a member: 404 \`INVITATION_NOT_FOUND\`; answered already: 409 \`INVITATION_NOT_PENDING\`. Emits \`InvitationCanceled\`.`,
      body: InvitationIdBody,
      response: { schema: InvitationSchema, description: "The canceled invitation" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) => c.json(await service.cancel(session.userRecord, body.invitationId, tools.meta(c))),
  );
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/organization/list-invitations",
      operationId: "listInvitations",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "Invitations: the caller's, or an organization's",
      description: `With \`organizationId\`: every invitation of that organization, newest first (any member may list them; ${NOT_MEMBER.replace("An organization", "an organization")}). Without: the caller's pending, unexpired invitations (to their email address).`,
      query: z.object({ organizationId: Id.optional() }),
      response: {
        schema: z.array(InvitationSchema).openapi("OrganizationInvitationList"),
        description: "The invitations",
      },
      errors: [404],
    },
    async (c, { query, session }) =>
      c.json(
        await service.listInvitations(
          session.userRecord,
          query.organizationId === undefined ? null : { organizationId: query.organizationId },
        ),
      ),
  );
};

const registerMemberRoutes: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/update-member-role",
      rateLimit: { window: "1m", max: 30 },
      operationId: "updateMemberRole",
      tag: TAG,
      authenticated: true,
      summary: "Change a member's role",
      description: `\`memberId\`: the member's id (or user id). ${required(service, "member:update")} Only an owner may make someone an owner or change an owner's role. The last owner cannot be demoted (409 \`LAST_OWNER\`, decided atomically with every other owner change). An unknown role is 400 \`ROLE_NOT_FOUND\`, an unknown member 404 \`MEMBER_NOT_FOUND\`. ${NOT_MEMBER} Emits \`MemberRoleChanged\`.`,
      body: z.object({
        memberId: z.string().min(1).max(64),
        role: z.string().max(32),
        organizationId: OrganizationIdField,
      }),
      response: { schema: MemberSchema, description: "The member with the new role" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.updateMemberRole(
          session.userRecord,
          { organizationId: orgOf(body.organizationId, session), memberId: body.memberId, role: body.role },
          tools.meta(c),
        ),
      ),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/remove-member",
      rateLimit: { window: "1m", max: 30 },
      operationId: "removeMember",
      tag: TAG,
      authenticated: true,
      summary: "Remove a member",
      description: `\`memberIdOrEmail\`: the member's id, user id or email. ${required(service, "member:delete")} Only an owner may remove an owner; the last owner never (409 \`LAST_OWNER\`). ${NOT_MEMBER} Emits \`MemberRemoved\`.`,
      body: z.object({ memberIdOrEmail: z.string().min(1).max(320), organizationId: OrganizationIdField }),
      response: { schema: SuccessSchema, description: "Removed" },
      errors: [403, 404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.removeMember(
          session.userRecord,
          { organizationId: orgOf(body.organizationId, session), memberIdOrEmail: body.memberIdOrEmail },
          tools.meta(c),
        ),
      ),
  );
};

const registerPermissionRoutes: Register = (app, tools, service) => {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/leave",
      rateLimit: { window: "1m", max: 10 },
      operationId: "leaveOrganization",
      tag: TAG,
      authenticated: true,
      summary: "Leave an organization",
      description: `Ends the caller's membership. The last owner cannot leave (409 \`LAST_OWNER\`: make another member owner first, or delete the organization). ${NOT_MEMBER} Emits \`MemberRemoved\`.`,
      body: z.object({ organizationId: Id }),
      response: { schema: SuccessSchema, description: "Left" },
      errors: [404, 409],
    },
    async (c, { body, session }) => c.json(await service.leave(session.userRecord, body.organizationId, tools.meta(c))),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/organization/has-permission",
      rateLimit: { window: "1m", max: 120 },
      globalRateLimit: false,
      operationId: "hasPermission",
      tag: TAG,
      authenticated: true,
      summary: "Whether the caller's role grants permissions",
      description:
        "Whether the caller is a member of the organization (default: the active one) whose role grants every action of `permissions`. Answers `{ success: false }` for a non-member or another role, never an error.",
      body: z.object({ organizationId: OrganizationIdField, permissions: Statements }),
      response: {
        schema: z.object({ success: z.boolean() }).openapi("PermissionCheck"),
        description: "Whether every action is granted",
      },
    },
    async (c, { body, session }) =>
      c.json({
        success: await service.hasPermission({
          userId: session.userRecord.id,
          organizationId: orgOf(body.organizationId, session),
          permissions: body.permissions,
        }),
      }),
  );
};

/**
 * Registers the `/organization/*` endpoints when `organizations()` is installed (else they answer 404).
 *
 * @example
 * registerOrganizationsRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerOrganizationsRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(ORGANIZATIONS_PLUGIN_ID);
  if (!feature) return;
  for (const register of [
    registerOrganizationCrud,
    registerOrganizationReads,
    registerInvitationWrites,
    registerInvitationReads,
    registerMemberRoutes,
    registerPermissionRoutes,
  ])
    register(app, tools, feature.service);
}
