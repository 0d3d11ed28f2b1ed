import type { JsonObject } from "@latchkey/core";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { instant, jsonText } from "./schema-columns.ts";

// The server's own state: rate-limit counters, JWT signing keys, audit events.

/** SQLite table of fixed-window counters (rate limits, lockouts). */
export const counters = sqliteTable(
  "counters",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    /** Epoch milliseconds, as the port speaks them. */
    resetAt: integer("reset_at").notNull(),
  },
  // The sweep deletes ended windows by `reset_at`: a range scan instead of a pass over every counter.
  (t) => [index("counters_reset_at_idx").on(t.resetAt)],
);

/** SQLite table of JWT signing keys; one row per generation. */
export const jwks = sqliteTable(
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

/** SQLite table of audit events; no foreign key, so rows outlive their user. */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    userId: text("user_id"),
    identifier: text("identifier"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    at: instant("at").notNull(),
    data: jsonText<JsonObject>("data").notNull(),
  },
  (t) => [index("audit_events_user_id_at_idx").on(t.userId, t.at, t.id), index("audit_events_at_idx").on(t.at, t.id)],
);
