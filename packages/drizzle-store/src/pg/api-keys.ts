import type { ApiKeyPatch, ApiKeyStore, ApiKeyUseResult } from "@latchkey/core";
import { and, desc, eq, isNotNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { apiKeyRefusal, CONSUME_ATTEMPTS, unstableKeyError } from "../api-key-refusal.ts";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { decodeCursor, toPage } from "../keyset-cursor.ts";
import type { PgDatabase } from "./database.ts";
import { apiKeys } from "./schema.ts";

const k = apiKeys;
const hasFields = (patch: ApiKeyPatch) => Object.values(patch).some((v) => v !== undefined);

/** `ApiKeyStore` over PostgreSQL; a use is one conditional UPDATE ... RETURNING. */
export function apiKeysPort(db: PgDatabase): ApiKeyStore {
  // Verifying a key is a lookup and a use: those statements are built once per store, bound per call.
  const byColumn = (column: typeof k.id | typeof k.keyHash, name: string) =>
    db
      .select()
      .from(k)
      .where(eq(column, sql.placeholder("value")))
      .limit(1)
      .prepare(name);
  const byId = byColumn(k.id, "api_keys_by_id");
  const byHash = byColumn(k.keyHash, "api_keys_by_hash");
  const findById = async (id: string) => (await byId.execute({ value: id }))[0] ?? null;
  const owned = (id: string, userId: string | null): SQL | undefined =>
    and(eq(k.id, id), userId === null ? undefined : eq(k.userId, userId));

  // One statement decides and records the use: enabled, unexpired, quota left, under the per-key window limit
  // (a window that ended restarts at `now`). Row locks serialise concurrent uses of the same key.
  // Hand-written SQL skips drizzle's column encoding: `now` is bound as an ISO string cast to timestamptz.
  const at = sql`${sql.placeholder("at")}::timestamptz`;
  const windowed = sql`(${k.rateLimitMax} is not null and ${k.rateLimitWindowMs} is not null)`;
  const windowEnded = sql`(${k.windowStart} is null or ${k.windowStart} + ${k.rateLimitWindowMs} * interval '1 millisecond' <= ${at})`;
  const use = db
    .update(k)
    .set({
      remaining: sql`${k.remaining} - 1`,
      requestCount: sql`case when not ${windowed} then ${k.requestCount} when ${windowEnded} then 1 else ${k.requestCount} + 1 end`,
      windowStart: sql`case when not ${windowed} then ${k.windowStart} when ${windowEnded} then ${at} else ${k.windowStart} end`,
      lastUsedAt: boundPlaceholder("now", k.lastUsedAt),
    })
    .where(
      and(
        eq(k.id, sql.placeholder("id")),
        eq(k.enabled, true),
        sql`(${k.expiresAt} is null or ${k.expiresAt} > ${at})`,
        sql`(${k.remaining} is null or ${k.remaining} > 0)`,
        sql`(not ${windowed} or (case when ${windowEnded} then 0 else ${k.requestCount} end) < ${k.rateLimitMax})`,
      ),
    )
    .returning()
    .prepare("api_keys_consume_use");
  const useOnce = async (id: string, now: Date) => (await use.execute({ id, now, at: now.toISOString() }))[0] ?? null;

  return {
    async create(key) {
      await db.insert(k).values(key);
    },
    async findByHash(keyHash) {
      return (await byHash.execute({ value: keyHash }))[0] ?? null;
    },
    findById,
    async listByUser(userId, { limit, cursor }) {
      const after = cursor === null ? null : decodeCursor(cursor);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      const older = after && or(lt(k.createdAt, after.at), and(eq(k.createdAt, after.at), lt(k.id, after.id)));
      const rows = await db
        .select()
        .from(k)
        .where(and(eq(k.userId, userId), older ?? undefined))
        .orderBy(desc(k.createdAt), desc(k.id))
        .limit(limit + 1);
      return toPage(rows, limit, (row) => ({ at: row.createdAt, id: row.id }));
    },
    async update(id, userId, patch) {
      if (!hasFields(patch)) return (await db.select().from(k).where(owned(id, userId)).limit(1))[0] ?? null;
      return (await db.update(k).set(patch).where(owned(id, userId)).returning())[0] ?? null;
    },
    async delete(id, userId) {
      return (await db.delete(k).where(owned(id, userId)).returning())[0] ?? null;
    },
    async deleteExpired(now, userId) {
      const mine = userId === null ? undefined : eq(k.userId, userId);
      return db
        .delete(k)
        .where(and(isNotNull(k.expiresAt), lte(k.expiresAt, now), mine))
        .returning({ id: k.id, userId: k.userId });
    },
    async consumeUse(id, now): Promise<ApiKeyUseResult> {
      for (let attempt = 0; attempt < CONSUME_ATTEMPTS; attempt++) {
        const used = await useOnce(id, now);
        if (used) return { ok: true, key: used };
        // Only now, to name the reason: the decision above was already made in SQL.
        const key = await findById(id);
        if (!key) return { ok: false, reason: "NOT_FOUND", key: null };
        const reason = apiKeyRefusal(key, now);
        if (reason) return { ok: false, reason, key };
      }
      throw unstableKeyError(id);
    },
  };
}
