import type { CounterState, CounterStore } from "@latchkey/core";
import { and, eq, lte, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { inBatch } from "./batch.ts";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { gatedHitsOver } from "../gated-hits.ts";
import { changedRows, type PgDatabase } from "./database.ts";
import { counters } from "./schema.ts";

const dialect = new PgDialect();

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
    hitGated: gatedHits(db),
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
      // The condition is repeated: the ids come from a snapshot, and a window restarted while this delete waited
      // on the row's lock is re-checked against the new row (READ COMMITTED), so it stays.
      return changedRows(await db.delete(counters).where(and(inBatch(counters.key, batch), ended)));
    },
  };
}

/** `hitGated` over PostgreSQL: both hits in one statement. */
function gatedHits(db: PgDatabase): NonNullable<CounterStore["hitGated"]> {
  const live = sql`${counters.resetAt} > ${sql.placeholder("now")}`;
  // Every email sent hits its cooldown and, when that admits it, the recipient's budget: one statement (named
  // `counters_hit_gated`), the budget's INSERT selecting from the cooldown's RETURNING. The cooldown's upsert locks
  // its row, so of racing calls each sees the count the one before it left; the budget's row is another key.
  // Bound values in `insert ... select` are cast: PostgreSQL does not infer their types from the target columns.
  const [keyColumn, countColumn, resetAtColumn] = [counters.key, counters.count, counters.resetAt].map((c) =>
    sql.identifier(c.name),
  );
  const columns = sql`(${keyColumn}, ${countColumn}, ${resetAtColumn})`;
  const listed = sql`${keyColumn}, ${countColumn}, ${resetAtColumn}`;
  const restart = (then: SQL, otherwise: SQL) => sql`case when ${live} then ${then} else ${otherwise} end`;
  const upsertWindow = sql.join(
    [
      sql`on conflict (${keyColumn}) do update set`,
      sql`${countColumn} = ${restart(sql`${counters.count} + 1`, sql`1`)},`,
      sql`${resetAtColumn} = ${restart(sql`${counters.resetAt}`, sql`excluded.${resetAtColumn}`)}`,
      sql`returning ${listed}`,
    ],
    sql` `,
  );
  const bound = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
  const gatedStatement = sql.join(
    [
      sql`with "gate" as (insert into ${counters} ${columns}`,
      sql`values (${bound("gateKey", "text")}, 1, ${bound("gateResetAt", "bigint")}) ${upsertWindow}),`,
      sql`"next" as (insert into ${counters} ${columns}`,
      sql`select ${bound("nextKey", "text")}, 1, ${bound("nextResetAt", "bigint")} from "gate"`,
      sql`where "gate".${countColumn} <= ${bound("max", "integer")} ${upsertWindow})`,
      sql`select ${listed} from "gate" union all select ${listed} from "next"`,
    ],
    sql` `,
  );
  const gated = db._.session.prepareQuery<{
    execute: Array<{ key: string } & CounterState>;
    all: unknown;
    values: unknown;
  }>(dialect.sqlToQuery(gatedStatement), undefined, "counters_hit_gated", true, (rows) =>
    (rows as unknown[][]).map(([key, count, resetAt]) => ({
      key: String(key),
      count: Number(count),
      resetAt: Number(resetAt),
    })),
  );
  return gatedHitsOver((values) => gated.execute(values));
}
