import type { CounterStore } from "@latchkey/core";
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { gatedHitsOver } from "../gated-hits.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { readThrough, writeRowsThrough, writeThrough, type FileReads } from "./read-through.ts";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { counters } from "./schema.ts";

/**
 * `CounterStore` over SQLite/libSQL: every hit is one INSERT ... ON CONFLICT DO UPDATE with the window logic in SQL.
 * A file store runs its hit, peek and delete (each one statement, atomic on its own) through statements the engine
 * prepared once (see file-reads.ts); `reads` is null elsewhere (a transaction's ports, D1, a remote server).
 */
export function countersPort(db: SqliteDatabase, reads: FileReads | null = null): CounterStore {
  // Every rate-limited request hits a counter: the upsert is built once; `now` and the new reset time are bound.
  const live = sql`${counters.resetAt} > ${sql.placeholder("now")}`;
  const state = { count: counters.count, resetAt: counters.resetAt };
  const hitOn = <K extends "sync" | "async">(on: BaseSQLiteDatabase<K, unknown>) =>
    on
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
      .returning(state);
  // Every lockout check peeks and every successful sign-in deletes: built once too.
  const isLive = and(eq(counters.key, sql.placeholder("key")), live);
  const removeOn = <K extends "sync" | "async">(on: BaseSQLiteDatabase<K, unknown>) =>
    on
      .delete(counters)
      .where(eq(counters.key, sql.placeholder("key")))
      .returning({ key: counters.key });
  // The lockout check's two keys in one statement: the keys bound as one JSON array, so one prepared statement
  // serves any count.
  const anyLive = and(sql`${counters.key} in (select value from json_each(${sql.placeholder("keys")}))`, live);
  const keyed = { key: counters.key, ...state };
  const viaClient = {
    hit: hitOn(db).prepare(),
    peek: db.select(state).from(counters).where(isLive).limit(1).prepare(),
    peekMany: db.select(keyed).from(counters).where(anyLive).prepare(),
    remove: removeOn(db).prepare(),
  };
  const hit = writeThrough(
    reads,
    (wdb) => hitOn(wdb).prepare(),
    (values) => viaClient.hit.all(values),
  );
  const peek = readThrough(
    reads,
    (rdb) => rdb.select(state).from(counters).where(isLive).limit(1).prepare(),
    (values) => viaClient.peek.all(values),
  );
  // Rows of several keys: the read-through statements step one row only (`get`), so this one stays on the client.
  const peekMany = (values: { keys: string; now: number }) => viaClient.peekMany.all(values);
  const remove = writeThrough(
    reads,
    (wdb) => removeOn(wdb).prepare(),
    (values) => viaClient.remove.all(values),
  );
  return {
    async hit(key, windowMs, now) {
      const [row] = await hit({ key, now, resetAt: now + windowMs });
      return row!;
    },
    hitGated: gatedHits(db, reads),
    async peek(key, now) {
      const [row] = await peek({ key, now });
      return row ?? null;
    },
    async peekMany(keys, now) {
      const rows = await peekMany({ keys: JSON.stringify(keys), now });
      return keys.map((key) => {
        const row = rows.find((r) => r.key === key);
        return row ? { count: row.count, resetAt: row.resetAt } : null;
      });
    },
    async delete(key) {
      await remove({ key });
    },
    async rename(from, to) {
      if (from === to) return;
      await db.batch([
        db.delete(counters).where(eq(counters.key, to)),
        db.update(counters).set({ key: to }).where(eq(counters.key, from)),
      ]);
    },
    async deleteExpired(now, limit) {
      // counters_reset_at_idx makes this a range scan, not a pass over every counter.
      const ended = lte(counters.resetAt, now);
      if (limit === undefined) return changedRows(await db.delete(counters).where(ended));
      const batch = db.select({ key: counters.key }).from(counters).where(ended).limit(limit);
      return changedRows(await db.delete(counters).where(inArray(counters.key, batch)));
    },
  };
}

/** `hitGated` over SQLite/libSQL: both hits in one statement (on a file store's writer connection, see counters). */
function gatedHits(db: SqliteDatabase, reads: FileReads | null): NonNullable<CounterStore["hitGated"]> {
  const live = sql`${counters.resetAt} > ${sql.placeholder("now")}`;
  const state = { count: counters.count, resetAt: counters.resetAt };
  // Every email sent hits its cooldown and, when that admits it, the recipient's budget: one INSERT ... SELECT of
  // both rows, the budget's only when the cooldown's live window has not reached `max` yet. SQLite runs a SELECT that
  // reads the table it inserts into to its end before the first row goes in, so the check sees the counters as they
  // were; the statement is atomic (the write lock is held from its start), so racing calls stay exact.
  const gateKey = sql.placeholder("gateKey");
  const gatedOn = <K extends "sync" | "async">(on: BaseSQLiteDatabase<K, unknown>) =>
    on
      .insert(counters)
      .select(
        sql`select ${gateKey}, 1, ${sql.placeholder("gateResetAt")} union all select ${sql.placeholder("nextKey")}, 1, ${sql.placeholder("nextResetAt")} where ${sql.placeholder("max")} >= 1 and not exists (select 1 from ${counters} where ${counters.key} = ${gateKey} and ${live} and ${counters.count} >= ${sql.placeholder("max")})`,
      )
      .onConflictDoUpdate({
        target: counters.key,
        set: {
          count: sql`case when ${live} then ${counters.count} + 1 else 1 end`,
          resetAt: sql`case when ${live} then ${counters.resetAt} else excluded.reset_at end`,
        },
      })
      .returning({ key: counters.key, ...state });
  const viaClient = gatedOn(db).prepare();
  const gated = writeRowsThrough(
    reads,
    (wdb) => gatedOn(wdb).prepare(),
    (values) => viaClient.all(values),
  );
  return gatedHitsOver(gated);
}
