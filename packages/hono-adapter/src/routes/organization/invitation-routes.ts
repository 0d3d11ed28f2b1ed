import { z } from "@hono/zod-openapi";
import { defineRoute } from "../define.ts";
import { EmailField } from "../schemas.ts";
import { NOT_MEMBER, orgOf, type Register, required } from "./route-helpers.ts";
import { Id, InvitationIdBody, InvitationSchema, MemberSchema, OrganizationIdField, TAG } from "./schemas.ts";

export const registerInvitationWrites: Register = (app, tools, service) => {
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

export const registerInvitationReads: Register = (app, tools, service) => {
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
