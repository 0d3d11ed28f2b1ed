import { z } from "@hono/zod-openapi";

export const TAG = "Organizations";

export const Id = z.string().min(1).max(64);
export const OrganizationIdField = Id.optional().openapi({
  description: "The organization's id; default: the session's active organization.",
});
export const Metadata = z.record(z.string(), z.unknown()).openapi({ description: "App data, at most 8 KB of JSON." });
export const Statements = z
  .record(z.string().max(32), z.array(z.string().max(32)).max(64))
  .openapi("PermissionStatements", {
    description: 'Resource -> actions, e.g. `{ "project": ["create", "delete"] }`.',
    example: { project: ["create"] },
  });

export const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    logo: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Organization");

export const MembershipSchema = OrganizationSchema.extend({
  role: z.string().openapi({ description: "The caller's role in it." }),
}).openapi("OrganizationMembership");

export const MemberSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    role: z.string(),
    createdAt: z.string().openapi({ format: "date-time" }),
    user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), image: z.string().nullable() }),
  })
  .openapi("OrganizationMember");

export const InvitationSchema = z
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

export const FullOrganizationSchema = OrganizationSchema.extend({
  members: z.array(MemberSchema),
  invitations: z.array(InvitationSchema).openapi({ description: "The pending invitations." }),
}).openapi("FullOrganization");

export const InvitationIdBody = z.object({ invitationId: Id });
