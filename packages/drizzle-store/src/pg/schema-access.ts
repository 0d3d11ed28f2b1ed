import type { JsonObject, Permissions } from "@latchkey/core";
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { instant } from "./schema-columns.ts";
import { organizations } from "./schema-organizations.ts";
import { users } from "./schema-users.ts";

// What a request carries: a session token or an API key (each kept as its SHA-256).

/** PostgreSQL table of sessions (only the SHA-256 of each token). */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: instant("expires_at").notNull(),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    rememberMe: boolean("remember_me").notNull().default(true),
    // The admin who started this session by impersonating its user (`admin()`); null for the user's own.
    impersonatedBy: text("impersonated_by"),
    // `organizations()`: written only by `OrganizationStore.setActive`; an organization's deletion clears it.
    activeOrganizationId: text("active_organization_id").references(() => organizations.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("sessions_token_hash_unique").on(t.tokenHash),
    index("sessions_user_id_idx").on(t.userId),
    index("sessions_expires_at_idx").on(t.expiresAt),
    // `SessionStore.deleteImpersonatedBy`: only impersonation sessions are indexed (a handful at any time).
    index("sessions_impersonated_by_idx").on(t.impersonatedBy).where(sql`${t.impersonatedBy} is not null`),
  ],
);

/** PostgreSQL table of API keys (only the SHA-256 of each key). */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name"),
    prefix: text("prefix").notNull(),
    start: text("start").notNull(),
    keyHash: text("key_hash").notNull(),
    enabled: boolean("enabled").notNull(),
    locked: boolean("locked").notNull().default(false),
    metadata: json("metadata").$type<JsonObject>().notNull(),
    serverMetadata: json("server_metadata").$type<JsonObject>().notNull().default({}),
    permissions: json("permissions").$type<Permissions>().notNull(),
    remaining: integer("remaining"),
    refillAmount: integer("refill_amount"),
    refillIntervalMs: bigint("refill_interval_ms", { mode: "number" }),
    lastRefillAt: instant("last_refill_at"),
    previousKeyHash: text("previous_key_hash"),
    previousKeyExpiresAt: instant("previous_key_expires_at"),
    rerolledAt: instant("rerolled_at"),
    rateLimitMax: integer("rate_limit_max"),
    // bigint: a 30-day window is past the 24.8 days that int4 milliseconds can hold.
    rateLimitWindowMs: bigint("rate_limit_window_ms", { mode: "number" }),
    requestCount: integer("request_count").notNull(),
    windowStart: instant("window_start"),
    lastUsedAt: instant("last_used_at"),
    expiresAt: instant("expires_at"),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
    // `organizations()`: the organization the key acts for (its permissions capped by the creator's role there);
    // null for a user's own key. Deleting the organization deletes its keys.
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_unique").on(t.keyHash),
    uniqueIndex("api_keys_previous_key_hash_unique").on(t.previousKeyHash),
    index("api_keys_previous_key_expires_at_idx").on(t.previousKeyExpiresAt),
    index("api_keys_user_id_created_at_idx").on(t.userId, t.createdAt, t.id),
    index("api_keys_expires_at_idx").on(t.expiresAt),
    // An organization's keys, newest first (its list, its deletion); most keys have none and stay out of it.
    index("api_keys_organization_id_created_at_idx")
      .on(t.organizationId, t.createdAt, t.id)
      .where(sql`${t.organizationId} is not null`),
  ],
);
