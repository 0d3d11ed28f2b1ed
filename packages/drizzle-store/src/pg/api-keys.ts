import {
  apiKeyUseRefusalAt,
  STORE_CLOCK_LEAD_MS,
  type ApiKeyPatch,
  type ApiKeyStore,
  type ApiKeyUseResult,
} from "@latchkey/core";
import { and, count, desc, eq, isNotNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { CONSUME_ATTEMPTS, unstableKeyError } from "../api-key-refusal.ts";
import { sqlApiKeyUseRule } from "../sql-use-rule.ts";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { decodeCursor, toPage } from "../keyset-cursor.ts";
import type { PgDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { inBatch } from "./batch.ts";
import { apiKeys, members, organizations, users } from "./schema.ts";
import { errorChain, stringField } from "../driver-error.ts";

const k = apiKeys;
const hasFields = (patch: ApiKeyPatch) => Object.values(patch).some((v) => v !== undefined);

/** `ApiKeyStore` over PostgreSQL; a use is one conditional UPDATE ... RETURNING. */
export function apiKeysPort(db: PgDatabase): ApiKeyStore {
  const lookups = lookupsPort(db);
  return { ...lookups, ...usesPort(db, lookups.findById), ...changesPort(db) };
}

type Lookups = Pick<
  ApiKeyStore,
  "findByHash" | "findByHashWithOwner" | "findById" | "listByUser" | "listByOrganization"
>;

/** A newest-first keyset page of the keys matching `where`. */
async function keysPage(db: PgDatabase, where: SQL, { limit, cursor }: { limit: number; cursor: string | null }) {
  const after = cursor === null ? null : decodeCursor(cursor);
  if (cursor !== null && after === null) return { items: [], nextCursor: null };
  const older = after && or(lt(k.createdAt, after.at), and(eq(k.createdAt, after.at), lt(k.id, after.id)));
  const rows = await db
    .select()
    .from(k)
    .where(and(where, older ?? undefined))
    .orderBy(desc(k.createdAt), desc(k.id))
    .limit(limit + 1);
  return toPage(rows, limit, (row) => ({ at: row.createdAt, id: row.id }));
}

/** True when the insert was refused by the foreign key to the organization (deleted meanwhile). */
function isOrganizationGone(error: unknown): boolean {
  for (const e of errorChain(error))
    if (stringField(e, "constraint") === "api_keys_organization_id_organizations_id_fk") return true;
  return false;
}

function lookupsPort(db: PgDatabase): Lookups {
  // Verifying a key is a lookup and a use: those statements are built once per store, bound per call.
  const byColumn = (column: typeof k.id | typeof k.keyHash, name: string) =>
    db
      .select()
      .from(k)
      .where(eq(column, sql.placeholder("value")))
      .limit(1)
      .prepare(name);
  const byId = byColumn(k.id, "api_keys_by_id");
  // The current value or a rerolled one still in its grace (the caller checks the grace): one indexed read either way.
  const hashMatches = or(eq(k.keyHash, sql.placeholder("value")), eq(k.previousKeyHash, sql.placeholder("value")));
  const byHash = db.select().from(k).where(hashMatches).limit(1).prepare("api_keys_by_hash");
  // What a verify reads: the same lookup joined with the owner, one round trip (a key without its owner is no row).
  const byHashWithOwner = db
    .select({ key: k, user: users })
    .from(k)
    .innerJoin(users, eq(users.id, k.userId))
    .where(hashMatches)
    .limit(1)
    .prepare("api_keys_by_hash_with_owner");
  const findById = async (id: string) => (await byId.execute({ value: id }))[0] ?? null;
  return {
    async findByHash(keyHash) {
      return (await byHash.execute({ value: keyHash }))[0] ?? null;
    },
    async findByHashWithOwner(keyHash) {
      return (await byHashWithOwner.execute({ value: keyHash }))[0] ?? null;
    },
    findById,
    listByUser: (userId, page) => keysPage(db, eq(k.userId, userId), page),
    // `organization_id is not null` lets PostgreSQL pick the partial index (organization_id, created_at, id).
    listByOrganization: (organizationId, page) =>
      keysPage(db, and(eq(k.organizationId, organizationId), isNotNull(k.organizationId))!, page),
  };
}

/** A use (core's rule in one conditional UPDATE ... RETURNING) and the throttled last-used stamp. */
function usesPort(db: PgDatabase, findById: Lookups["findById"]): Pick<ApiKeyStore, "consumeUse" | "touchLastUsed"> {
  // One statement decides and records the use: core's rule (sql-use-rule.ts) is its WHERE and its SET. Row locks
  // serialise concurrent uses of the same key, and a second use re-evaluates the WHERE on the row the first one
  // wrote (so a refill due at `now` happens once). `now` is bound as an ISO string cast to timestamptz.
  // The use's instant is the caller's, bounded by the database's clock (boundByStoreClock): an instance whose
  // clock runs ahead cannot stamp a window or a refill into the future of the others.
  const rule = sqlApiKeyUseRule(k, {
    now: sql`least(${sql.placeholder("at")}::timestamptz, now() + interval '${sql.raw(String(STORE_CLOCK_LEAD_MS))} milliseconds')`,
    addMs: (instant, ms) => sql`(${instant} + ${ms} * interval '1 millisecond')`,
  });
  const use = db
    .update(k)
    .set(rule.set)
    .where(and(eq(k.id, sql.placeholder("id")), rule.allowed))
    .returning()
    .prepare("api_keys_consume_use");
  const useOnce = async (id: string, now: Date) => (await use.execute({ id, at: now.toISOString() }))[0] ?? null;
  const clock = db
    .select({ ms: sql<string>`(extract(epoch from now()) * 1000)::bigint::text` })
    .from(k)
    .limit(1)
    .prepare("api_keys_database_now");
  // Read only to name a refusal the bounded instant decided (see apiKeyUseRefusalAt).
  const databaseNow = async () => Number((await clock.execute())[0]?.ms ?? Date.now());
  const touch = db
    .update(k)
    .set({ lastUsedAt: boundPlaceholder("now", k.lastUsedAt) })
    .where(
      and(
        eq(k.id, sql.placeholder("id")),
        sql`(${k.lastUsedAt} is null or ${k.lastUsedAt} <= ${sql.placeholder("staleAt")}::timestamptz)`,
      ),
    )
    .prepare("api_keys_touch_last_used");

  return {
    async touchLastUsed(id, now, resolutionMs) {
      await touch.execute({ id, now, staleAt: new Date(now.getTime() - resolutionMs).toISOString() });
    },
    async consumeUse(id, now): Promise<ApiKeyUseResult> {
      for (let attempt = 0; attempt < CONSUME_ATTEMPTS; attempt++) {
        const used = await useOnce(id, now);
        if (used) return { ok: true, key: used };
        // Only now, to name the reason: the decision above was already made in SQL.
        const key = await findById(id);
        if (!key) return { ok: false, reason: "NOT_FOUND", key: null };
        const reason = await apiKeyUseRefusalAt(key, now, databaseNow);
        if (reason) return { ok: false, reason, key };
      }
      throw unstableKeyError(id);
    },
  };
}

function changesPort(
  db: PgDatabase,
): Pick<ApiKeyStore, "create" | "update" | "reroll" | "deleteExpiredRerolls" | "delete" | "deleteExpired"> {
  const owned = (id: string, userId: string | null): SQL | undefined =>
    and(eq(k.id, id), userId === null ? undefined : eq(k.userId, userId));
  return {
    async create(key, options = {}) {
      const max = options.maxPerUser ?? null;
      const organizationId = key.organizationId ?? null;
      try {
        if (max === null && organizationId === null) {
          await db.insert(k).values(key);
          return true;
        }
        return await db.transaction(async (tx): Promise<boolean | "owner-gone" | "organization-gone"> => {
          if (organizationId !== null) {
            // An organization's key: its row is share-locked first (before the owner's, the order a user's deletion
            // takes them in), so its deletion and every membership change wait for this insert, and its cascade
            // then takes the key; the creator must be a member of it.
            const held = await tx
              .select({ id: organizations.id })
              .from(organizations)
              .where(eq(organizations.id, organizationId))
              .for("key share");
            const member = await tx
              .select({ id: members.id })
              .from(members)
              .where(and(eq(members.organizationId, organizationId), eq(members.userId, key.userId)));
            if (held.length === 0 || member.length === 0) return "organization-gone";
          }
          if (max !== null) {
            // The owner's row is locked, so concurrent creates for one user count one after the other (each
            // statement of a read-committed transaction sees what committed before it started).
            const owner = await tx.select({ id: users.id }).from(users).where(eq(users.id, key.userId)).for("update");
            if (owner.length === 0) return "owner-gone";
            const [row] = await tx.select({ n: count() }).from(k).where(eq(k.userId, key.userId));
            if ((row?.n ?? 0) >= max) return false;
          }
          await tx.insert(k).values(key);
          return true;
        });
      } catch (error) {
        // The owner (or the organization) is gone, deleted by a concurrent request: the foreign key refused the row.
        if (isOrganizationGone(error)) return "organization-gone";
        if (isForeignKeyViolation(error)) return "owner-gone";
        throw error;
      }
    },
    async update(id, userId, patch, options = {}) {
      const where = and(owned(id, userId), options.unlessLocked ? eq(k.locked, false) : undefined);
      if (!hasFields(patch)) return (await db.select().from(k).where(where).limit(1))[0] ?? null;
      return (await db.update(k).set(patch).where(where).returning())[0] ?? null;
    },
    async reroll(id, userId, r) {
      const rows = await db
        .update(k)
        .set({
          // The right-hand side reads the row before the update: the value being replaced.
          previousKeyHash: r.graceUntil === null ? null : sql`${k.keyHash}`,
          previousKeyExpiresAt: r.graceUntil,
          keyHash: r.keyHash,
          start: r.start,
          rerolledAt: r.at,
          updatedAt: r.at,
        })
        .where(owned(id, userId))
        .returning();
      return rows[0] ?? null;
    },
    async deleteExpiredRerolls(now, limit) {
      const ended = lte(k.previousKeyExpiresAt, now);
      // A batch: the ids come from the previous_key_expires_at index, at most `limit` of them.
      const batch =
        limit === undefined ? ended : inBatch(k.id, db.select({ id: k.id }).from(k).where(ended).limit(limit));
      const rows = await db
        .update(k)
        .set({ previousKeyHash: null, previousKeyExpiresAt: null })
        .where(and(batch, ended))
        .returning({ id: k.id });
      return rows.length;
    },
    async delete(id, userId) {
      return (await db.delete(k).where(owned(id, userId)).returning())[0] ?? null;
    },
    async deleteExpired(now, userId, limit) {
      const expired = and(
        isNotNull(k.expiresAt),
        lte(k.expiresAt, now),
        userId === null ? undefined : eq(k.userId, userId),
      );
      // A batch: the ids come from the expires_at index, at most `limit` of them (the condition is repeated, so a key
      // extended meanwhile stays).
      const batch =
        limit === undefined ? undefined : inBatch(k.id, db.select({ id: k.id }).from(k).where(expired).limit(limit));
      return db.delete(k).where(and(batch, expired)).returning({ id: k.id, userId: k.userId });
    },
  };
}
