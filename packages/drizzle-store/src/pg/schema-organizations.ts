import type { JsonObject } from "@latchkey/core";
import { index, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { instant } from "./schema-columns.ts";
import { users } from "./schema-users.ts";

/** PostgreSQL table of organizations (`organizations()`); the slug is unique. */
export const organizations = pgTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    logo: text("logo"),
    metadata: json("metadata").$type<JsonObject>().notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [uniqueIndex("organizations_slug_unique").on(t.slug)],
);

/**
 * PostgreSQL table of memberships: one per organization and user. Every write that changes who is an owner locks
 * the organization's row first, so the last-owner rule is decided one write at a time per organization.
 */
export const members = pgTable(
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

/** PostgreSQL table of invitations; the inviter is kept as an id (no foreign key): an invitation outlives its sender's membership. */
export const invitations = pgTable(
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
