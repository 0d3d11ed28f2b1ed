import type { PasskeyStore } from "@latchkey/core";
import { and, asc, eq, sql } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { accounts, passkeys as p, users } from "./schema.ts";

/**
 * `PasskeyStore` over SQLite, libSQL and D1: the unique index on `credential_id` decides registrations; the
 * counter's compare-and-set and the last-way check are each one statement (SQLite runs one writer at a time, and a
 * statement sees every write committed before it).
 */
export function passkeysPort(db: SqliteDatabase): PasskeyStore {
  return {
    async insert(record) {
      // The owner must exist: foreign keys are a per-connection setting on SQLite, so the statement checks too.
      const r = record;
      const written = await db.all<{ id: string }>(sql`
        insert into ${p} (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, aaguid, name, created_at, last_used_at)
        select ${r.id}, ${users.id}, ${r.credentialId}, ${r.publicKey}, ${r.counter}, ${JSON.stringify(r.transports)},
          ${r.deviceType}, ${r.backedUp ? 1 : 0}, ${r.aaguid}, ${r.name}, ${r.createdAt.getTime()}, ${r.lastUsedAt?.getTime() ?? null}
        from ${users} where ${users.id} = ${r.userId}
        on conflict (credential_id) do nothing
        returning id`);
      if (written.length > 0) return "inserted";
      const owner = await db.select({ id: users.id }).from(users).where(eq(users.id, record.userId)).limit(1);
      return owner.length === 0 ? "owner-gone" : "taken";
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
      const changed = await db
        .update(p)
        .set({ counter: next, backedUp, lastUsedAt: at })
        .where(and(eq(p.id, id), eq(p.counter, expected)))
        .returning({ id: p.id });
      return changed.length === 1;
    },
    async delete(userId, id, options) {
      if (options?.evenLast) {
        const gone = await db
          .delete(p)
          .where(and(eq(p.id, id), eq(p.userId, userId)))
          .returning({ id: p.id });
        return gone.length > 0 ? "deleted" : "not-found";
      }
      const otherPasskeys = sql`(select count(*) from ${p} as others where others.user_id = ${userId} and others.id <> ${id})`;
      const userAccounts = sql`(select count(*) from ${accounts} where ${accounts.userId} = ${userId})`;
      const gone = await db
        .delete(p)
        .where(and(eq(p.id, id), eq(p.userId, userId), sql`${otherPasskeys} + ${userAccounts} > 0`))
        .returning({ id: p.id });
      if (gone.length > 0) return "deleted";
      const mine = await db
        .select({ id: p.id })
        .from(p)
        .where(and(eq(p.id, id), eq(p.userId, userId)))
        .limit(1);
      return mine.length > 0 ? "last" : "not-found";
    },
    async deleteAllByUser(userId) {
      return (await db.delete(p).where(eq(p.userId, userId)).returning({ id: p.id })).map((row) => row.id);
    },
  };
}
