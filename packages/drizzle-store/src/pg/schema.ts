import type { JsonObject, Permissions, ProviderId } from "@latchkey/core";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

// Property names equal the record fields of `@latchkey/core`, so a selected row is already a record.
// Instants are timestamptz(3): JavaScript dates carry milliseconds, and nothing finer is ever written.
const instant = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });

/** PostgreSQL table of users. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    emailVerified: boolean("email_verified").notNull(),
    name: text("name"),
    image: text("image"),
    username: text("username"),
    // `json`, not `jsonb`: kept as written (key order included); nothing queries inside it.
    metadata: json("metadata").$type<JsonObject>().notNull(),
    // Server-only (roles, plan): written by trusted server code only. Rows from before the column read `{}`.
    appMetadata: json("app_metadata").$type<JsonObject>().notNull().default({}),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
    // A ban (`admin()`): no session can be created for a banned user until `ban_expires` (never when null).
    banned: boolean("banned").notNull().default(false),
    banReason: text("ban_reason"),
    banExpires: instant("ban_expires"),
  },
  // Most users have no username: the partial index holds only those who do, so a sign-up writes one index page fewer.
  // The admin list's searches: an email or a lower-cased name prefix, each a range in byte order (`collate "C"`,
  // whatever the database's collation), and the newest first.
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    uniqueIndex("users_username_unique").on(t.username).where(sql`${t.username} is not null`),
    index("users_email_c_idx").on(sql`${t.email} collate "C"`, t.id),
    index("users_name_c_idx").on(sql`lower(${t.name}) collate "C"`, t.id),
    index("users_created_at_idx").on(t.createdAt, t.id),
  ],
);

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

/** PostgreSQL table of accounts; at most one `credential` account per user. */
export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    providerId: text("provider_id").$type<ProviderId>().notNull(),
    passwordHash: text("password_hash"),
    // A linked social account: the provider's subject, and its tokens sealed (AES-256-GCM) by core.
    accountId: text("account_id"),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: instant("access_token_expires_at"),
    refreshTokenExpiresAt: instant("refresh_token_expires_at"),
    scope: text("scope"),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [
    index("accounts_user_id_idx").on(t.userId),
    // The conflict target of the password upserts: setting a password is one INSERT ... ON CONFLICT.
    uniqueIndex("accounts_credential_unique").on(t.userId).where(sql`provider_id = 'credential'`),
    // One user per provider identity; passwords and email codes have no subject and stay out of the index.
    uniqueIndex("accounts_provider_account_unique")
      .on(t.providerId, t.accountId)
      .where(sql`${t.accountId} is not null`),
  ],
);

/** PostgreSQL table of one-time secrets (OTPs, link tokens); one live row per identifier. */
export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    valueHash: text("value_hash").notNull(),
    attemptCount: integer("attempt_count").notNull(),
    expiresAt: instant("expires_at").notNull(),
    createdAt: instant("created_at").notNull(),
    // No foreign key: a secret may be issued before (or without) a user row; users.delete removes them explicitly.
    userId: text("user_id"),
    payload: text("payload"),
  },
  (t) => [
    uniqueIndex("verifications_identifier_unique").on(t.identifier),
    index("verifications_value_hash_idx").on(t.valueHash),
    // Only rows bound to a user are looked up by it (a user's deletion); a sign-in code for a new email has none.
    index("verifications_user_id_idx").on(t.userId).where(sql`${t.userId} is not null`),
    index("verifications_expires_at_idx").on(t.expiresAt),
  ],
);

/** PostgreSQL table of fixed-window counters (rate limits, lockouts). */
export const counters = pgTable(
  "counters",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    /** Epoch milliseconds, as the port speaks them. */
    resetAt: bigint("reset_at", { mode: "number" }).notNull(),
  },
  // The sweep deletes ended windows by `reset_at`: a range scan instead of a pass over every counter.
  (t) => [index("counters_reset_at_idx").on(t.resetAt)],
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

/** PostgreSQL table of JWT signing keys; one row per generation. */
export const jwks = pgTable(
  "jwks",
  {
    id: text("id").primaryKey(),
    generation: integer("generation").notNull(),
    alg: text("alg").notNull(),
    publicKey: text("public_key").notNull(),
    privateKey: text("private_key").notNull(),
    createdAt: instant("created_at").notNull(),
    retiredAt: instant("retired_at"),
  },
  (t) => [uniqueIndex("jwks_generation_unique").on(t.generation)],
);

/**
 * PostgreSQL table of two-factor records, one per user. `recovery_codes` is `jsonb` so that one code's use is a
 * single conditional UPDATE (`jsonb_exists`, `-`): of two racing uses exactly one matches.
 */
export const twoFactor = pgTable("two_factor", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  enabled: boolean("enabled").notNull(),
  lastStep: bigint("last_step", { mode: "number" }),
  recoveryCodes: jsonb("recovery_codes").$type<string[]>().notNull(),
  trustedAfter: instant("trusted_after"),
  createdAt: instant("created_at").notNull(),
  updatedAt: instant("updated_at").notNull(),
});

/**
 * PostgreSQL table of passkeys (WebAuthn credentials): a credential id belongs to one user at most; the counter
 * advances by one conditional UPDATE (compare-and-set).
 */
export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull(),
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull(),
    transports: jsonb("transports").$type<string[]>().notNull(),
    deviceType: text("device_type").$type<"singleDevice" | "multiDevice">().notNull(),
    backedUp: boolean("backed_up").notNull(),
    aaguid: text("aaguid").notNull(),
    name: text("name"),
    createdAt: instant("created_at").notNull(),
    lastUsedAt: instant("last_used_at"),
  },
  (t) => [uniqueIndex("passkeys_credential_id_unique").on(t.credentialId), index("passkeys_user_id_idx").on(t.userId)],
);

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

/** PostgreSQL table of audit events; no foreign key, so rows outlive their user. */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    userId: text("user_id"),
    identifier: text("identifier"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    at: instant("at").notNull(),
    data: json("data").$type<JsonObject>().notNull(),
  },
  (t) => [index("audit_events_user_id_at_idx").on(t.userId, t.at, t.id), index("audit_events_at_idx").on(t.at, t.id)],
);
