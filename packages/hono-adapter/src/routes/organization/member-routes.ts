import { z } from "@hono/zod-openapi";
import { defineRoute } from "../define.ts";
import { SuccessSchema } from "../schemas.ts";
import { NOT_MEMBER, orgOf, type Register, required } from "./route-helpers.ts";
import { Id, MemberSchema, OrganizationIdField, Statements, TAG } from "./schemas.ts";

export const registerMemberRoutes: Register = (app, tools, service) => {
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

export const registerPermissionRoutes: Register = (app, tools, service) => {
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
