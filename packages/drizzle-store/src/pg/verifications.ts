import type { CounterStore, VerificationStore } from "@latchkey/core";
import { and, eq, gt, gte, lte, sql } from "drizzle-orm";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { counters, verifications } from "./schema.ts";
import { affected, type PgDatabase } from "./users.ts";

/** `VerificationStore` over PostgreSQL: one row per identifier, consumed and counted by single statements. */
export function pgVerificationStore(db: PgDatabase): VerificationStore {
  // Every OTP and link check reads the row by identifier and consumes it by id: built once, bound per call.
  const byIdentifier = db
    .select()
    .from(verifications)
    .where(eq(verifications.identifier, sql.placeholder("identifier")))
    .limit(1)
    .prepare("verifications_by_identifier");
  const consume = db
    .delete(verifications)
    .where(eq(verifications.id, sql.placeholder("id")))
    .returning()
    .prepare("verifications_consume");
  return {
    async issue(record) {
      // The identifier is unique, so "delete the old rows, insert this one" is one upsert that replaces every
      // column: two racing sends leave one row, where DELETE + INSERT under READ COMMITTED could leave two.
      const { identifier: _, ...replacement } = record;
      await db
        .insert(verifications)
        .values(record)
        .onConflictDoUpdate({ target: verifications.identifier, set: replacement });
    },
    async findByIdentifier(identifier) {
      return (await byIdentifier.execute({ identifier }))[0] ?? null;
    },
    async findByValueHash(valueHash) {
      return (await db.select().from(verifications).where(eq(verifications.valueHash, valueHash)).limit(1))[0] ?? null;
    },
    async consume(id) {
      return (await consume.execute({ id }))[0] ?? null;
    },
    async recordFailedAttempt(id, maxAttempts) {
      // The UPDATE's row lock holds until commit, so the increment and the delete at the limit are one step.
      return db.transaction(async (tx) => {
        const [bumped] = await tx
          .update(verifications)
          .set({ attemptCount: sql`${verifications.attemptCount} + 1` })
          .where(eq(verifications.id, id))
          .returning({ attemptCount: verifications.attemptCount });
        if (!bumped) return null;
        const destroyed = await tx
          .delete(verifications)
          .where(and(eq(verifications.id, id), gte(verifications.attemptCount, maxAttempts)))
          .returning({ id: verifications.id });
        return { attemptCount: bumped.attemptCount, destroyed: destroyed.length > 0 };
      });
    },
    async deleteByIdentifier(identifier) {
      return affected(await db.delete(verifications).where(eq(verifications.identifier, identifier)));
    },
    async deleteExpired(now) {
      return affected(await db.delete(verifications).where(lte(verifications.expiresAt, now)));
    },
  };
}

/** `CounterStore` over PostgreSQL: every hit is one INSERT ... ON CONFLICT DO UPDATE with the window logic in SQL. */
export function pgCounterStore(db: PgDatabase): CounterStore {
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
  return {
    async hit(key, windowMs, now) {
      const [state] = await hit.execute({ key, now, resetAt: now + windowMs });
      return state!;
    },
    async peek(key, now) {
      const [state] = await db
        .select({ count: counters.count, resetAt: counters.resetAt })
        .from(counters)
        .where(and(eq(counters.key, key), gt(counters.resetAt, now)))
        .limit(1);
      return state ?? null;
    },
    async delete(key) {
      await db.delete(counters).where(eq(counters.key, key));
    },
    async rename(from, to) {
      if (from === to) return;
      await db.transaction(async (tx) => {
        await tx.delete(counters).where(eq(counters.key, to));
        await tx.update(counters).set({ key: to }).where(eq(counters.key, from));
      });
    },
  };
}
