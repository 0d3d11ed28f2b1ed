import type { VerificationStore } from "@latchkey/core";
import { and, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { bindsWhole, rowPlaceholders } from "../bound-placeholder.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { oneRowOf, readThrough, writeThrough, type FileReads } from "./read-through.ts";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { verifications } from "./schema.ts";

/**
 * `VerificationStore` over SQLite/libSQL: one row per identifier, consumed and counted atomically. A file store
 * runs the issue, the lookup by identifier and the consume (each one statement) through statements the engine
 * prepared once (see file-reads.ts); `reads` is null elsewhere (a transaction's ports, D1, a remote server).
 */
export function verificationsPort(db: SqliteDatabase, reads: FileReads | null = null): VerificationStore {
  // Every OTP and link check reads the row by identifier and consumes it by id: built once, bound per call.
  const identifierIs = eq(verifications.identifier, sql.placeholder("identifier"));
  const idIs = eq(verifications.id, sql.placeholder("id"));
  const byIdentifier = db.select().from(verifications).where(identifierIs).limit(1).prepare();
  const consumeViaClient = db.delete(verifications).where(idIs).returning().prepare();
  const findByIdentifier = readThrough(
    reads,
    (rdb) => rdb.select().from(verifications).where(identifierIs).limit(1).prepare(),
    oneRowOf(byIdentifier),
  );
  const consume = writeThrough(
    reads,
    (wdb) => wdb.delete(verifications).where(idIs).returning().prepare(),
    oneRowOf(consumeViaClient),
  );
  // Every code or link sent: the identifier is unique, so "delete the old rows, insert this one" is one upsert
  // replacing every column.
  const { identifier: _identifier, ...replaceBound } = rowPlaceholders(verifications);
  const upsertOn = <K extends "sync" | "async">(on: BaseSQLiteDatabase<K, unknown>) =>
    on
      .insert(verifications)
      .values(rowPlaceholders(verifications))
      .onConflictDoUpdate({ target: verifications.identifier, set: replaceBound })
      .returning({ id: verifications.id });
  const upsertViaClient = upsertOn(db).prepare();
  const upsert = writeThrough(reads, (wdb) => upsertOn(wdb).prepare(), oneRowOf(upsertViaClient));
  return {
    async issue(record) {
      if (bindsWhole(verifications, record)) {
        await upsert(record);
        return;
      }
      const { identifier: _, ...replacement } = record;
      await db
        .insert(verifications)
        .values(record)
        .onConflictDoUpdate({ target: verifications.identifier, set: replacement });
    },
    async findByIdentifier(identifier) {
      return (await findByIdentifier({ identifier }))[0] ?? null;
    },
    async findByValueHash(valueHash) {
      return (await db.select().from(verifications).where(eq(verifications.valueHash, valueHash)).limit(1))[0] ?? null;
    },
    async consume(id) {
      return (await consume({ id }))[0] ?? null;
    },
    async recordFailedAttempt(id, maxAttempts) {
      // One write transaction: the increment, then the delete when the new count reached the limit.
      const [bumped, destroyed] = await db.batch([
        db
          .update(verifications)
          .set({ attemptCount: sql`${verifications.attemptCount} + 1` })
          .where(eq(verifications.id, id))
          .returning({ attemptCount: verifications.attemptCount }),
        db
          .delete(verifications)
          .where(and(eq(verifications.id, id), gte(verifications.attemptCount, maxAttempts)))
          .returning({ id: verifications.id }),
      ]);
      const [row] = bumped;
      return row ? { attemptCount: row.attemptCount, destroyed: destroyed.length > 0 } : null;
    },
    async deleteByIdentifier(identifier) {
      return changedRows(await db.delete(verifications).where(eq(verifications.identifier, identifier)));
    },
    async deleteExpired(now, limit) {
      const expired = lte(verifications.expiresAt, now);
      if (limit === undefined) return changedRows(await db.delete(verifications).where(expired));
      const batch = db.select({ id: verifications.id }).from(verifications).where(expired).limit(limit);
      return changedRows(await db.delete(verifications).where(inArray(verifications.id, batch)));
    },
  };
}
