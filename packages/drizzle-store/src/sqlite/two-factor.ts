import type { TwoFactorStore } from "@latchkey/core";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { twoFactor as t } from "./schema.ts";

/**
 * `TwoFactorStore` over SQLite, libSQL and D1. Every guarded write is one conditional UPDATE, and SQLite runs one
 * writing statement at a time: of two callers with the same step or recovery code exactly one changes the row.
 */
export function twoFactorPort(db: SqliteDatabase): TwoFactorStore {
  return {
    async find(userId) {
      const [row] = await db.select().from(t).where(eq(t.userId, userId));
      return row ?? null;
    },
    async savePending(record) {
      const { userId: _userId, ...rest } = record;
      try {
        const saved = await db
          .insert(t)
          .values({ ...record, enabled: false })
          .onConflictDoUpdate({
            target: t.userId,
            set: { ...rest, enabled: false },
            // An enabled record is never overwritten by a setup.
            setWhere: eq(t.enabled, false),
          })
          .returning({ userId: t.userId });
        return saved.length > 0;
      } catch (error) {
        // The user is gone (deleted by a concurrent request): the foreign key refused the row.
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
    },
    async acceptStep(userId, secret, step, at, options = {}) {
      const enable = options.enable === true;
      const result = await db
        .update(t)
        .set({ lastStep: step, enabled: true, updatedAt: at })
        .where(
          and(
            eq(t.userId, userId),
            eq(t.secret, secret),
            eq(t.enabled, !enable),
            or(isNull(t.lastStep), lt(t.lastStep, step)),
          ),
        );
      return changedRows(result) === 1;
    },
    async useRecoveryCode(userId, codeHash, at) {
      const remaining = sql`(select json_group_array(value) from (select value from json_each(${t.recoveryCodes}) where value <> ${codeHash} order by key))`;
      const result = await db
        .update(t)
        .set({ recoveryCodes: remaining, updatedAt: at })
        .where(
          and(
            eq(t.userId, userId),
            eq(t.enabled, true),
            sql`exists (select 1 from json_each(${t.recoveryCodes}) where value = ${codeHash})`,
          ),
        );
      return changedRows(result) === 1;
    },
    async replaceRecoveryCodes(userId, codeHashes, at) {
      const result = await db
        .update(t)
        .set({ recoveryCodes: codeHashes, updatedAt: at })
        .where(and(eq(t.userId, userId), eq(t.enabled, true)));
      return changedRows(result) === 1;
    },
    async distrustDevices(userId, at) {
      const result = await db.update(t).set({ trustedAfter: at, updatedAt: at }).where(eq(t.userId, userId));
      return changedRows(result) === 1;
    },
    async delete(userId) {
      return changedRows(await db.delete(t).where(eq(t.userId, userId))) === 1;
    },
  };
}
