import type { CounterStore } from "@latchkey/core";
import { and, eq, lte, sql } from "drizzle-orm";
import { inBatch } from "./batch.ts";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { changedRows, type PgDatabase } from "./database.ts";
import { counters } from "./schema.ts";

/** `CounterStore` over PostgreSQL: every hit is one INSERT ... ON CONFLICT DO UPDATE with the window logic in SQL. */
export function countersPort(db: PgDatabase): CounterStore {
  // Every rate-limited request hits a counter: the upsert is built once; `now` and the new reset time are bound.
  const live = sql`${counters.resetAt} > ${sql.placeholder("now")}`;
  const hit = db
    .insert(counters)
    .values({
      key: boundPlaceholder("key", counters.key),
      count: 1,
      resetAt: boundPlaceholder("resetAt", counters.resetAt),
    })
    .onConflictDoUpdate({
      target: counters.key,
      set: {
        count: sql`case when ${live} then ${counters.count} + 1 else 1 end`,
        resetAt: sql`case when ${live} then ${counters.resetAt} else ${sql.placeholder("resetAt")} end`,
      },
    })
    .returning({ count: counters.count, resetAt: counters.resetAt })
    .prepare("counters_hit");
  // Every lockout check peeks and every successful sign-in deletes: built once too.
  const peek = db
    .select({ count: counters.count, resetAt: counters.resetAt })
    .from(counters)
    .where(and(eq(counters.key, sql.placeholder("key")), live))
    .limit(1)
    .prepare("counters_peek");
  // The lockout check's two keys in one round trip.
  const peekMany = db
    .select({ key: counters.key, count: counters.count, resetAt: counters.resetAt })
    .from(counters)
    .where(and(sql`${counters.key} = any(${sql.placeholder("keys")}::text[])`, live))
    .prepare("counters_peek_many");
  const remove = db
    .delete(counters)
    .where(eq(counters.key, sql.placeholder("key")))
    .prepare("counters_delete");
  return {
    async hit(key, windowMs, now) {
      const [state] = await hit.execute({ key, now, resetAt: now + windowMs });
      return state!;
    },
    async peek(key, now) {
      const [state] = await peek.execute({ key, now });
      return state ?? null;
    },
    async peekMany(keys, now) {
      const rows = await peekMany.execute({ keys: [...keys], now });
      return keys.map((key) => {
        const row = rows.find((r) => r.key === key);
        return row ? { count: row.count, resetAt: row.resetAt } : null;
      });
    },
    async delete(key) {
      await remove.execute({ key });
    },
    async rename(from, to) {
      if (from === to) return;
      await db.transaction(async (tx) => {
        await tx.delete(counters).where(eq(counters.key, to));
        await tx.update(counters).set({ key: to }).where(eq(counters.key, from));
      });
    },
    async deleteExpired(now, limit) {
      // counters_reset_at_idx makes this a range scan, not a pass over every counter.
      const ended = lte(counters.resetAt, now);
      if (limit === undefined) return changedRows(await db.delete(counters).where(ended));
      const batch = db.select({ key: counters.key }).from(counters).where(ended).limit(limit);
      return changedRows(await db.delete(counters).where(inBatch(counters.key, batch)));
    },
  };
}
