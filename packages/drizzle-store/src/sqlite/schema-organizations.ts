import type { JsonObject } from "@latchkey/core";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { instant, jsonText } from "./schema-columns.ts";
import { users } from "./schema-users.ts";

/** SQLite table of organizations (`organizations()`); the slug is unique. */
export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    logo: text("logo"),
    metadata: jsonText<JsonObject>("metadata").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [uniqueIndex("organizations_slug_unique").on(t.slug)],
);

/** SQLite table of memberships: one per organization and user; owner-changing writes are single statements. */
export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("members_organization_user_unique").on(t.organizationId, t.userId),
    index("members_user_id_idx").on(t.userId),
  ],
);

/** SQLite table of invitations; the inviter is kept as an id (no foreign key). */
export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").notNull(),
    inviterId: text("inviter_id").notNull(),
    status: text("status").$type<"pending" | "accepted" | "rejected" | "canceled">().notNull(),
    expiresAt: instant("expires_at").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [index("invitations_organization_id_idx").on(t.organizationId), index("invitations_email_idx").on(t.email)],
);
