import { z } from "@hono/zod-openapi";
import { SessionSchema, UserSchema } from "../schemas.ts";

export const TAG = "Admin";

const AdminUserSchema = UserSchema.extend({
  banned: z.boolean(),
  banReason: z.string().nullable().openapi({ description: "Why, as the admin wrote it (never shown to the user)" }),
  banExpires: z
    .string()
    .nullable()
    .openapi({ format: "date-time", description: "When the ban ends; null for a ban without an end, or no ban" }),
}).openapi("AdminUser");

export const AdminUserResponse = z.object({ user: AdminUserSchema }).openapi("AdminUserResponse");

export const UserIdField = z.string().min(1).max(255).openapi({ description: "The user's id" });
export const UserIdBody = z.object({ userId: UserIdField });

const RoleName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
export const RoleField = z
  .union([RoleName, z.array(RoleName).min(1).max(16)])
  .openapi({ description: "A role, or a list of roles (stored as `appMetadata.role`)", example: "admin" });

export const ListUsersQuery = z.object({
  searchField: z
    .enum(["email", "name"])
    .optional()
    .openapi({ description: 'What `searchValue` is a prefix of (default "email")' }),
  searchValue: z.string().max(320).optional().openapi({ description: "A prefix, matched case-insensitively" }),
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: "1..100, default 20", example: 20 }),
  cursor: z.string().max(1024).optional().openapi({ description: "`nextCursor` of the previous page" }),
});

export const ListUsersResponse = z
  .object({
    users: z.array(AdminUserSchema),
    total: z.number().int().nullable().openapi({
      description:
        "How many users the whole listing (this search) has: on the first page; null after it. Counted no further than `admin({ listUsersCountLimit })` (100,000 by default): beyond it, that limit with `totalExact: false`",
    }),
    totalExact: z.boolean().nullable().openapi({
      description:
        'Whether `total` is exact (false: the listing has more users than `total`, e.g. "100,000+"); null after the first page',
    }),
    nextCursor: z.string().nullable(),
  })
  .openapi("AdminUserList");

export const AdminUserDetailSchema = z
  .object({
    user: AdminUserSchema,
    sessions: z.array(SessionSchema).openapi({ description: "The user's live sessions, newest first" }),
    accounts: z.array(
      z.object({
        id: z.string(),
        providerId: z.string(),
        accountId: z.string().nullable(),
        createdAt: z.string().openapi({ format: "date-time" }),
      }),
    ),
    apiKeys: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: "The user's API keys (never their values)" }),
    auditLog: z
      .array(
        z.object({
          id: z.string(),
          type: z.string(),
          at: z.string().openapi({ format: "date-time" }),
          ip: z.string().nullable(),
          userAgent: z.string().nullable(),
        }),
      )
      .openapi({ description: "The latest 20 audit rows about the user (`auditLog()`), newest first" }),
  })
  .openapi("AdminUserDetail");
