import type { JsonObject, ProviderId } from "@latchkey/core";
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { flag, instant, jsonText } from "./schema-columns.ts";

// A user and what they sign in with: accounts (password, social), one-time secrets, two-factor, passkeys.

/** SQLite table of users. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    emailVerified: flag("email_verified").notNull(),
    name: text("name"),
    image: text("image"),
    username: text("username"),
    metadata: jsonText<JsonObject>("metadata").notNull(),
    // Server-only (roles, plan): written by trusted server code only. Rows from before the column read `{}`.
    appMetadata: jsonText<JsonObject>("app_metadata").notNull().default({}),
    createdAt: instant("created_at").notNull(),
    updatedAt: instant("updated_at").notNull(),
    // A ban (`admin()`): no session can be created for a banned user until `ban_expires` (never when null).
    banned: flag("banned").notNull().default(false),
    banReason: text("ban_reason"),
    banExpires: instant("ban_expires"),
  },
  // Most users have no username: the partial index holds only those who do, so a sign-up writes one index page fewer.
  // The admin list's searches: an email prefix is a range of the unique index (binary collation); a name prefix one
  // of lower(name); the newest first.
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    uniqueIndex("users_username_unique").on(t.username).where(sql`${t.username} is not null`),
    index("users_name_lower_idx").on(sql`lower(${t.name})`, t.id),
    index("users_created_at_idx").on(t.createdAt, t.id),
  ],
);

/** SQLite table of accounts; at most one `credential` account per user. */
export const accounts = sqliteTable(
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

/** SQLite table of one-time secrets (OTPs, link tokens); one live row per identifier. */
export const verifications = sqliteTable(
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

/**
 * SQLite table of two-factor records, one per user. `recovery_codes` is a JSON array in text, changed only by
 * single conditional UPDATEs (`json_each`), each atomic under SQLite's writer lock.
 */
export const twoFactor = sqliteTable("two_factor", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  enabled: flag("enabled").notNull(),
  lastStep: integer("last_step"),
  recoveryCodes: text("recovery_codes", { mode: "json" }).$type<string[]>().notNull(),
  trustedAfter: instant("trusted_after"),
  createdAt: instant("created_at").notNull(),
  updatedAt: instant("updated_at").notNull(),
});

/**
 * SQLite table of passkeys (WebAuthn credentials): a credential id belongs to one user at most; the counter
 * advances by one conditional UPDATE (compare-and-set).
 */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull(),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull(),
    transports: jsonText<string[]>("transports").notNull(),
    deviceType: text("device_type").$type<"singleDevice" | "multiDevice">().notNull(),
    backedUp: flag("backed_up").notNull(),
    aaguid: text("aaguid").notNull(),
    name: text("name"),
    createdAt: instant("created_at").notNull(),
    lastUsedAt: instant("last_used_at"),
  },
  (t) => [uniqueIndex("passkeys_credential_id_unique").on(t.credentialId), index("passkeys_user_id_idx").on(t.userId)],
);
