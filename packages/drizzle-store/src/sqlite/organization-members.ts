import type { OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import { and, asc, eq, sql } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { exists, memberOf, otherOwner, OWNER, underLimit } from "./organization-queries.ts";
import { members as m, organizations as o, users } from "./schema.ts";

/** The member half of `OrganizationStore`: the last-owner rule is a condition of the UPDATE or DELETE itself. */
export function memberRows(
  db: SqliteDatabase,
): Pick<OrganizationStore, "findMember" | "listMembers" | "addMember" | "updateMemberRole" | "removeMember"> {
  return {
    findMember: (organizationId, userId) => memberOf(db, organizationId, userId),
    async listMembers(organizationId) {
      return db
        .select({ member: m, user: users })
        .from(m)
        .innerJoin(users, eq(users.id, m.userId))
        .where(eq(m.organizationId, organizationId))
        .orderBy(asc(m.createdAt), asc(m.id));
    },
    async addMember(member, limit) {
      const x = member;
      const written = await db.all<{ id: string }>(sql`
        insert into ${m} (id, organization_id, user_id, role, created_at)
        select ${x.id}, ${o.id}, ${users.id}, ${x.role}, ${x.createdAt.getTime()}
        from ${o} join ${users} on ${users.id} = ${x.userId}
        where ${o.id} = ${x.organizationId} and ${underLimit(x.organizationId, limit)}
        on conflict (organization_id, user_id) do nothing
        returning id`);
      if (written.length > 0) return "added";
      if (!(await exists(db, o, x.organizationId))) return "organization-gone";
      if (!(await exists(db, users, x.userId))) return "user-gone";
      return (await memberOf(db, x.organizationId, x.userId)) ? "exists" : "limit";
    },
    async updateMemberRole(organizationId, userId, role): Promise<OwnerGuardedResult> {
      // A compare-and-set on the role read: the answer names the role it replaced, whatever ran between.
      for (;;) {
        const row = await memberOf(db, organizationId, userId);
        if (!row) return { ok: false, reason: "not-found" };
        const keepsOwner = row.role !== OWNER || role === OWNER;
        const [updated] = await db
          .update(m)
          .set({ role })
          .where(
            and(eq(m.id, row.id), eq(m.role, row.role), keepsOwner ? undefined : otherOwner(organizationId, userId)),
          )
          .returning();
        if (updated) return { ok: true, member: updated, previousRole: row.role };
        const now = await memberOf(db, organizationId, userId);
        if (!now) return { ok: false, reason: "not-found" };
        if (now.role === row.role) return { ok: false, reason: "last-owner" };
      }
    },
    async removeMember(organizationId, userId): Promise<OwnerGuardedResult> {
      const [gone] = await db
        .delete(m)
        .where(
          and(
            eq(m.organizationId, organizationId),
            eq(m.userId, userId),
            sql`(${m.role} <> ${OWNER} or ${otherOwner(organizationId, userId)})`,
          ),
        )
        .returning();
      if (gone) return { ok: true, member: gone, previousRole: gone.role };
      return (await memberOf(db, organizationId, userId))
        ? { ok: false, reason: "last-owner" }
        : { ok: false, reason: "not-found" };
    },
  };
}
