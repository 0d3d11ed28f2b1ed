import type { PasskeyStore } from "@latchkey/core";
import { and, asc, eq, sql } from "drizzle-orm";
import { changedRows, type PgDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { accounts, passkeys as p, users } from "./schema.ts";

/**
 * `PasskeyStore` over PostgreSQL: the unique index on `credential_id` decides registrations, the counter advances
 * by one conditional UPDATE (a racing second UPDATE waits for the first and re-checks its WHERE on the row the
 * first left), and a delete locks the owner's row first, so two deletes of one user count one after the other.
 */
export function passkeysPort(db: PgDatabase): PasskeyStore {
  return {
    async insert(record) {
      try {
        const written = await db
          .insert(p)
          .values(record)
          .onConflictDoNothing({ target: p.credentialId })
          .returning({ id: p.id });
        return written.length > 0 ? "inserted" : "taken";
      } catch (error) {
        // The owner is gone (deleted by a concurrent request): the foreign key refused the row.
        if (isForeignKeyViolation(error)) return "owner-gone";
        throw error;
      }
    },
    async listByUser(userId) {
      return db.select().from(p).where(eq(p.userId, userId)).orderBy(asc(p.createdAt), asc(p.id));
    },
    async findByCredentialId(credentialId) {
      return (await db.select().from(p).where(eq(p.credentialId, credentialId)).limit(1))[0] ?? null;
    },
    async rename(userId, id, name) {
      return (
        (
          await db
            .update(p)
            .set({ name })
            .where(and(eq(p.id, id), eq(p.userId, userId)))
            .returning()
        )[0] ?? null
      );
    },
    async recordUse(id, expected, next, backedUp, at) {
      const result = await db
        .update(p)
        .set({ counter: next, backedUp, lastUsedAt: at })
        .where(and(eq(p.id, id), eq(p.counter, expected)));
      return changedRows(result) === 1;
    },
    async delete(userId, id, options) {
      if (options?.evenLast) {
        const gone = await db
          .delete(p)
          .where(and(eq(p.id, id), eq(p.userId, userId)))
          .returning({ id: p.id });
        return gone.length > 0 ? "deleted" : "not-found";
      }
      return db.transaction(async (tx) => {
        const owner = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
        if (owner.length === 0) return "not-found";
        const held = await tx.select({ id: p.id }).from(p).where(eq(p.userId, userId));
        if (!held.some((row) => row.id === id)) return "not-found";
        if (held.length <= 1) {
          const [{ n } = { n: 0 }] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(accounts)
            .where(eq(accounts.userId, userId));
          if (n === 0) return "last";
        }
        await tx.delete(p).where(and(eq(p.id, id), eq(p.userId, userId)));
        return "deleted";
      });
    },
    async deleteAllByUser(userId) {
      return (await db.delete(p).where(eq(p.userId, userId)).returning({ id: p.id })).map((row) => row.id);
    },
  };
}
