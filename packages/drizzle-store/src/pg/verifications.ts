import type { VerificationStore } from "@latchkey/core";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import { inBatch } from "./batch.ts";
import { bindsWhole, rowPlaceholders } from "../bound-placeholder.ts";
import { changedRows, type PgDatabase } from "./database.ts";
import { verifications } from "./schema.ts";

/** `VerificationStore` over PostgreSQL: one row per identifier, consumed and counted by single statements. */
export function verificationsPort(db: PgDatabase): VerificationStore {
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
  // Every code or link sent. The identifier is unique, so "delete the old rows, insert this one" is one upsert
  // that replaces every column: two racing sends leave one row, where DELETE + INSERT under READ COMMITTED could
  // leave two.
  const { identifier: _identifier, ...replaceBound } = rowPlaceholders(verifications);
  const upsert = db
    .insert(verifications)
    .values(rowPlaceholders(verifications))
    .onConflictDoUpdate({ target: verifications.identifier, set: replaceBound })
    .prepare("verifications_issue");
  return {
    async issue(record) {
      if (bindsWhole(verifications, record)) {
        await upsert.execute(record);
        return;
      }
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
      return changedRows(await db.delete(verifications).where(eq(verifications.identifier, identifier)));
    },
    async deleteExpired(now, limit) {
      const expired = lte(verifications.expiresAt, now);
      if (limit === undefined) return changedRows(await db.delete(verifications).where(expired));
      const batch = db.select({ id: verifications.id }).from(verifications).where(expired).limit(limit);
      return changedRows(await db.delete(verifications).where(inBatch(verifications.id, batch)));
    },
  };
}
