import type { JsonObject } from "@latchkey/core";
import { bigint, index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { instant } from "./schema-columns.ts";

// The server's own state: rate-limit counters, JWT signing keys, audit events.

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
