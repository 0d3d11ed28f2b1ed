import type { JwkStore } from "@latchkey/core";
import { and, asc, isNotNull, isNull, lt, ne } from "drizzle-orm";
import { changedRows, type PgDatabase } from "./database.ts";
import { jwks } from "./schema.ts";

/** `JwkStore` over PostgreSQL: the unique generation index decides which racing instance's key wins. */
export function jwksPort(db: PgDatabase): JwkStore {
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
        .where(and(ne(jwks.id, exceptId), isNull(jwks.retiredAt)));
    },
    async deleteRetiredBefore(before) {
      return changedRows(await db.delete(jwks).where(and(isNotNull(jwks.retiredAt), lt(jwks.retiredAt, before))));
    },
  };
}
