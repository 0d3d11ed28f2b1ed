import type { OrganizationStore } from "@latchkey/core";
import { and, asc, eq, sql } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { errorChain, stringField } from "../driver-error.ts";
import { invitationRows } from "./organization-invitations.ts";
import { memberRows } from "./organization-members.ts";
import { exists, OWNER } from "./organization-queries.ts";
import { apiKeys, invitations as i, members as m, organizations as o, sessions, users } from "./schema.ts";

/** True for a unique violation on the organizations' slug index (libSQL and D1 both name the columns). */
function isSlugTaken(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const message = stringField(e, "message") ?? "";
    if (/UNIQUE constraint failed: organizations\.slug/.test(message)) return true;
  }
  return false;
}

/** The organizations whose only owner `userId` is. */
const soleOwned = (userId: string) => sql`(
  select mine.organization_id from ${m} as mine
  where mine.user_id = ${userId} and mine.role = ${OWNER}
    and not exists (select 1 from ${m} as others where others.organization_id = mine.organization_id
      and others.role = ${OWNER} and others.user_id <> ${userId}))`;

/**
 * The statements a user's deletion runs first, in its batch: the organizations they were the only owner of go with
 * their invitations, members and the sessions' references to them; then the user's own memberships. Explicit
 * deletes: foreign keys are a per-connection setting on SQLite (D1 enforces them; the children go first).
 */
export function membershipDeletes(db: SqliteDatabase, userId: string) {
  const sole = soleOwned(userId);
  return [
    db.delete(apiKeys).where(sql`${apiKeys.organizationId} in ${sole}`),
    db.delete(i).where(sql`${i.organizationId} in ${sole}`),
    db.update(sessions).set({ activeOrganizationId: null }).where(sql`${sessions.activeOrganizationId} in ${sole}`),
    db.delete(m).where(sql`${m.userId} <> ${userId} and ${m.organizationId} in ${sole}`),
    db.delete(o).where(sql`${o.id} in ${sole}`),
    db.delete(m).where(eq(m.userId, userId)),
  ] as const;
}

function organizationRows(
  db: SqliteDatabase,
): Pick<OrganizationStore, "create" | "findById" | "findBySlug" | "update" | "delete" | "listByUser" | "setActive"> {
  return {
    async create(organization, owner) {
      const x = organization;
      // The organization only with its owner (the user must exist); the member only with a new organization.
      const [created] = await db.batch([
        db
          .insert(o)
          .select(
            sql`select ${x.id}, ${x.name}, ${x.slug}, ${x.logo}, ${JSON.stringify(x.metadata)}, ${x.createdAt.getTime()}
              from ${users} where ${users.id} = ${owner.userId}`,
          )
          .onConflictDoNothing({ target: o.slug })
          .returning({ id: o.id }),
        db.insert(m).select(
          sql`select ${owner.id}, ${x.id}, ${owner.userId}, ${owner.role}, ${owner.createdAt.getTime()}
              where exists (select 1 from ${o} where ${o.id} = ${x.id})`,
        ),
      ]);
      if (created.length > 0) return "created";
      return (await exists(db, users, owner.userId)) ? "slug-taken" : "owner-gone";
    },
    async findById(id) {
      return (await db.select().from(o).where(eq(o.id, id)).limit(1))[0] ?? null;
    },
    async findBySlug(slug) {
      return (await db.select().from(o).where(eq(o.slug, slug)).limit(1))[0] ?? null;
    },
    async update(id, patch) {
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      try {
        if (Object.keys(defined).length === 0)
          return (await db.select().from(o).where(eq(o.id, id)).limit(1))[0] ?? null;
        return (await db.update(o).set(defined).where(eq(o.id, id)).returning())[0] ?? null;
      } catch (error) {
        if (isSlugTaken(error)) return "slug-taken";
        throw error;
      }
    },
    async delete(id) {
      const results = await db.batch([
        db.delete(apiKeys).where(eq(apiKeys.organizationId, id)),
        db.delete(i).where(eq(i.organizationId, id)),
        db.update(sessions).set({ activeOrganizationId: null }).where(eq(sessions.activeOrganizationId, id)),
        db.delete(m).where(eq(m.organizationId, id)),
        db.delete(o).where(eq(o.id, id)).returning({ id: o.id }),
      ]);
      return results[4].length > 0;
    },
    async listByUser(userId) {
      return db
        .select({ organization: o, member: m })
        .from(m)
        .innerJoin(o, eq(o.id, m.organizationId))
        .where(eq(m.userId, userId))
        .orderBy(asc(m.createdAt), asc(m.id));
    },
    async setActive(sessionId, userId, organizationId) {
      const membership =
        organizationId === null
          ? undefined
          : sql`exists (select 1 from ${m} where ${m.organizationId} = ${organizationId} and ${m.userId} = ${userId})`;
      const changed = await db
        .update(sessions)
        .set({ activeOrganizationId: organizationId })
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), membership))
        .returning({ id: sessions.id });
      return changed.length > 0;
    },
  };
}

/**
 * `OrganizationStore` over SQLite, libSQL and D1 (no interactive transactions): every write that guards an
 * invariant is one conditional statement, or one batch whose later statements are conditioned on the earlier ones'
 * rows; SQLite runs one writer at a time, and a statement sees every write committed before it. So the last-owner
 * rule is a condition of the UPDATE or DELETE itself, and an accept inserts the member only from a pending
 * invitation and marks the invitation only when that member row exists.
 */
export function organizationsPort(db: SqliteDatabase): OrganizationStore {
  return { ...organizationRows(db), ...memberRows(db), ...invitationRows(db) };
}
