import type { JwkStore } from "@latchkey/core";
import { and, asc, eq, isNotNull, isNull, lt } from "drizzle-orm";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { jwks } from "./schema.ts";

/** `JwkStore` over SQLite/libSQL: the unique generation index decides which racing instance's key wins. */
export function jwksPort(db: SqliteDatabase): JwkStore {
  return {
    async list() {
      return db.select().from(jwks).orderBy(asc(jwks.generation));
    },
    async insert(record) {
      const inserted = await db
        .insert(jwks)
        .values(record)
        .onConflictDoNothing({ target: jwks.generation })
        .returning({ id: jwks.id });
      return inserted.length > 0;
    },
    async retireOthers(exceptId, at) {
      await db
        .update(jwks)
        .set({ retiredAt: at })
        .where(
          and(
            isNull(jwks.retiredAt),
            lt(jwks.generation, db.select({ generation: jwks.generation }).from(jwks).where(eq(jwks.id, exceptId))),
          ),
        );
    },
    async deleteRetiredBefore(before) {
      return changedRows(await db.delete(jwks).where(and(isNotNull(jwks.retiredAt), lt(jwks.retiredAt, before))));
    },
  };
}
