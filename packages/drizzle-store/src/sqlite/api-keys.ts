import {
  apiKeyUseRefusalAt,
  STORE_CLOCK_LEAD_MS,
  type ApiKeyPatch,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUseResult,
} from "@latchkey/core";
import { and, inArray, desc, eq, getTableColumns, isNotNull, lt, lte, or, Param, sql, type SQL } from "drizzle-orm";
import { CONSUME_ATTEMPTS, unstableKeyError } from "../api-key-refusal.ts";
import { sqlApiKeyUseRule } from "../sql-use-rule.ts";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { decodeCursor, toPage } from "../keyset-cursor.ts";
import type { SqliteDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { readThrough, writeThrough, type FileReads } from "./read-through.ts";
import { apiKeys, members, users } from "./schema.ts";

const k = apiKeys;
const keyWithOwner = { key: apiKeys, user: users };
const hasFields = (patch: ApiKeyPatch) => Object.values(patch).some((v) => v !== undefined);

/** `ApiKeyStore` over SQLite/libSQL; a use is one conditional UPDATE ... RETURNING. */
export function apiKeysPort(db: SqliteDatabase, reads: FileReads | null = null): ApiKeyStore {
  const lookups = lookupsPort(db, reads);
  return { ...lookups, ...usesPort(db, reads, lookups.findById), ...changesPort(db) };
}

type Lookups = Pick<
  ApiKeyStore,
  "findByHash" | "findByHashWithOwner" | "findById" | "listByUser" | "listByOrganization"
>;

/** A newest-first keyset page of the keys matching `where`. */
async function keysPage(db: SqliteDatabase, where: SQL, { limit, cursor }: { limit: number; cursor: string | null }) {
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

function lookupsPort(db: SqliteDatabase, reads: FileReads | null): Lookups {
  // Verifying a key is a lookup and a use: those statements are built once per store, bound per call.
  const byId = db
    .select()
    .from(k)
    .where(eq(k.id, sql.placeholder("value")))
    .limit(1)
    .prepare();
  // The current value or a rerolled one still in its grace (the caller checks the grace): one indexed read either way.
  const hashMatches = or(eq(k.keyHash, sql.placeholder("value")), eq(k.previousKeyHash, sql.placeholder("value")));
  const byHash = db.select().from(k).where(hashMatches).limit(1).prepare();
  // The same lookup on the read connection (see file-reads.ts); drizzle maps its rows the same way.
  const readByHash = readThrough(
    reads,
    (rdb) => rdb.select().from(k).where(hashMatches).limit(1).prepare(),
    (values) => byHash.all(values),
  );
  // What a verify reads: the same lookup joined with the owner, one statement (a key without its owner is no row),
  // on the read connection too.
  const byHashWithOwner = db
    .select(keyWithOwner)
    .from(k)
    .innerJoin(users, eq(users.id, k.userId))
    .where(hashMatches)
    .limit(1)
    .prepare();
  const readByHashWithOwner = readThrough(
    reads,
    (rdb) =>
      rdb.select(keyWithOwner).from(k).innerJoin(users, eq(users.id, k.userId)).where(hashMatches).limit(1).prepare(),
    (values) => byHashWithOwner.all(values),
  );
  const findById = async (id: string) => (await byId.all({ value: id }))[0] ?? null;
  return {
    async findByHash(keyHash) {
      return (await readByHash({ value: keyHash }))[0] ?? null;
    },
    async findByHashWithOwner(keyHash) {
      return (await readByHashWithOwner({ value: keyHash }))[0] ?? null;
    },
    findById,
    listByUser: (userId, page) => keysPage(db, eq(k.userId, userId), page),
    // `organization_id is not null` lets SQLite pick the partial index (organization_id, created_at, id).
    listByOrganization: (organizationId, page) =>
      keysPage(db, and(eq(k.organizationId, organizationId), isNotNull(k.organizationId))!, page),
  };
}

/** The database's clock in epoch milliseconds (`julianday`, which every SQLite, libSQL and D1 has). */
const DATABASE_NOW_MS = sql`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;

/** A use (core's rule in one conditional UPDATE ... RETURNING) and the throttled last-used stamp. */
function usesPort(
  db: SqliteDatabase,
  reads: FileReads | null,
  findById: Lookups["findById"],
): Pick<ApiKeyStore, "consumeUse" | "touchLastUsed"> {
  // One statement decides and records the use: core's rule (sql-use-rule.ts) is its WHERE and its SET. Writes are
  // serialised, so a second use sees the first one's row (a refill due at `now` happens once). Instants are epoch
  // milliseconds: `now` is bound as one and instant arithmetic is plain addition.
  // The use's instant is the caller's, bounded by the database's clock (boundByStoreClock): an instance whose clock
  // runs ahead cannot stamp a window or a refill into the future of the others (libSQL may be a remote server).
  const rule = sqlApiKeyUseRule(k, {
    now: sql`min(${sql.placeholder("at")}, ${DATABASE_NOW_MS} + ${sql.raw(String(STORE_CLOCK_LEAD_MS))})`,
    addMs: (instant, ms) => sql`(${instant} + ${ms})`,
  });
  const usage = rule.set;
  const usable = and(eq(k.id, sql.placeholder("id")), rule.allowed);
  const viaClient = db.update(k).set(usage).where(usable).returning().prepare();
  // A file store runs the same UPDATE ... RETURNING through a statement the engine prepared once (see file-reads.ts).
  const use = writeThrough(
    reads,
    (wdb) => wdb.update(k).set(usage).where(usable).returning().prepare(),
    (values) => viaClient.all(values),
  );
  const useOnce = async (id: string, now: Date) => (await use({ id, at: now.getTime() }))[0] ?? null;
  const clock = db
    .select({ ms: sql<number>`${DATABASE_NOW_MS}` })
    .from(k)
    .limit(1)
    .prepare();
  // Read only to name a refusal the bounded instant decided (see apiKeyUseRefusalAt).
  const databaseNow = async () => Number((await clock.all())[0]?.ms ?? Date.now());
  const touch = db
    .update(k)
    .set({ lastUsedAt: boundPlaceholder("now", k.lastUsedAt) })
    .where(
      and(
        eq(k.id, sql.placeholder("id")),
        sql`(${k.lastUsedAt} is null or ${k.lastUsedAt} <= ${sql.placeholder("staleAt")})`,
      ),
    )
    .prepare();
  return {
    async touchLastUsed(id, now, resolutionMs) {
      await touch.run({ id, now, staleAt: now.getTime() - resolutionMs });
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
  db: SqliteDatabase,
): Pick<ApiKeyStore, "create" | "update" | "reroll" | "deleteExpiredRerolls" | "delete" | "deleteExpired"> {
  const owned = (id: string, userId: string | null): SQL | undefined =>
    and(eq(k.id, id), userId === null ? undefined : eq(k.userId, userId));
  const columns = Object.entries(getTableColumns(k));
  const membership = (key: ApiKeyRecord) =>
    sql`exists (select 1 from ${members} where ${members.organizationId} = ${key.organizationId} and ${members.userId} = ${key.userId})`;
  const insertUnderCap = async (key: ApiKeyRecord, max: number | null): Promise<boolean | "organization-gone"> => {
    const member = key.organizationId == null ? null : membership(key);
    if (max === null && member === null) {
      await db.insert(k).values(key);
      return true;
    }
    // Insert only while the owner has fewer than `max` keys, and (an organization's key) is a member of it: one
    // statement, and SQLite runs one writer at a time, so the checks and the insert cannot interleave with another
    // create or the organization's deletion. Values go through each column's encoder, as drizzle's own inserts do.
    const names = columns.map(([, column]) => sql.identifier(column.name));
    const values = columns.map(([field, column]) => sql`${new Param(key[field as keyof typeof key], column)}`);
    const conditions = [
      ...(max === null ? [] : [sql`(select count(*) from ${k} where ${k.userId} = ${key.userId}) < ${max}`]),
      ...(member === null ? [] : [member]),
    ];
    const inserted = await db.all<{ id: string }>(
      sql`insert into ${k} (${sql.join(names, sql`, `)}) select ${sql.join(values, sql`, `)} where ${sql.join(conditions, sql` and `)} returning ${k.id}`,
    );
    if (inserted.length === 1) return true;
    // Which check refused it (only to name the answer; the decision was the statement's).
    if (member !== null) {
      const [found] = await db.all<{ member: number }>(sql`select ${member} as member`);
      if (!found?.member) return "organization-gone";
    }
    return false;
  };
  return {
    async create(key, options = {}) {
      try {
        return await insertUnderCap(key, options.maxPerUser ?? null);
      } catch (error) {
        // The owner is gone (deleted by a concurrent request): the foreign key refused the row.
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
        limit === undefined ? ended : inArray(k.id, db.select({ id: k.id }).from(k).where(ended).limit(limit));
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
        limit === undefined ? undefined : inArray(k.id, db.select({ id: k.id }).from(k).where(expired).limit(limit));
      return db.delete(k).where(and(batch, expired)).returning({ id: k.id, userId: k.userId });
    },
  };
}
