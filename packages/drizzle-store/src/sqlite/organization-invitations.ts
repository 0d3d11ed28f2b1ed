import type { MemberRecord, OrganizationStore } from "@latchkey/core";
import { and, desc, eq, sql } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { exists, memberOf, underLimit } from "./organization-queries.ts";
import { invitations as i, members as m, organizations as o, users } from "./schema.ts";

/**
 * The invitation half of `OrganizationStore`: an accept is one batch that inserts the member only from a pending
 * invitation and marks the invitation only when that member row exists.
 */
export function invitationRows(
  db: SqliteDatabase,
): Pick<
  OrganizationStore,
  | "createInvitation"
  | "findInvitation"
  | "findPendingInvitation"
  | "renewInvitation"
  | "listInvitations"
  | "listInvitationsByEmail"
  | "acceptInvitation"
  | "settleInvitation"
> {
  return {
    async createInvitation(invitation) {
      const x = invitation;
      const written = await db.all<{ id: string }>(sql`
        insert into ${i} (id, organization_id, email, role, inviter_id, status, expires_at, created_at)
        select ${x.id}, ${o.id}, ${x.email}, ${x.role}, ${x.inviterId}, ${x.status}, ${x.expiresAt.getTime()}, ${x.createdAt.getTime()}
        from ${o} where ${o.id} = ${x.organizationId}
        returning id`);
      return written.length > 0;
    },
    async findInvitation(id) {
      return (await db.select().from(i).where(eq(i.id, id)).limit(1))[0] ?? null;
    },
    async findPendingInvitation(organizationId, email) {
      return (
        (
          await db
            .select()
            .from(i)
            .where(and(eq(i.organizationId, organizationId), eq(i.email, email), eq(i.status, "pending")))
            .orderBy(desc(i.createdAt), desc(i.id))
            .limit(1)
        )[0] ?? null
      );
    },
    async renewInvitation(id, expiresAt) {
      return (
        (
          await db
            .update(i)
            .set({ expiresAt })
            .where(and(eq(i.id, id), eq(i.status, "pending")))
            .returning()
        )[0] ?? null
      );
    },
    async listInvitations(organizationId) {
      return db.select().from(i).where(eq(i.organizationId, organizationId)).orderBy(desc(i.createdAt), desc(i.id));
    },
    async listInvitationsByEmail(email) {
      return db
        .select()
        .from(i)
        .where(and(eq(i.email, email), eq(i.status, "pending")))
        .orderBy(desc(i.createdAt), desc(i.id));
    },
    async acceptInvitation(id, acceptance, limit) {
      const a = acceptance;
      const [inserted, marked] = await db.batch([
        db
          .insert(m)
          .select(
            sql`select ${a.memberId}, inv.organization_id, ${users.id}, inv.role, ${a.at.getTime()}
              from ${i} as inv join ${users} on ${users.id} = ${a.userId}
              where inv.id = ${id} and inv.status = 'pending' and inv.expires_at > ${a.at.getTime()} and inv.email = ${a.email}
                and exists (select 1 from ${o} where ${o.id} = inv.organization_id)
                and ${underLimit(sql`inv.organization_id`, limit)}`,
          )
          .onConflictDoNothing({ target: [m.organizationId, m.userId] })
          .returning({ id: m.id }),
        db
          .update(i)
          .set({ status: "accepted" })
          .where(
            and(eq(i.id, id), eq(i.status, "pending"), sql`exists (select 1 from ${m} where ${m.id} = ${a.memberId})`),
          )
          .returning(),
      ]);
      const invitation = marked[0];
      if (inserted.length > 0 && invitation) {
        const member = (await db.select().from(m).where(eq(m.id, a.memberId)).limit(1))[0] as MemberRecord;
        return { ok: true, member, invitation };
      }
      const row = (await db.select().from(i).where(eq(i.id, id)).limit(1))[0];
      if (!row) return { ok: false, reason: "not-found" };
      if (row.status !== "pending") return { ok: false, reason: "not-pending" };
      if (row.expiresAt.getTime() <= a.at.getTime()) return { ok: false, reason: "expired" };
      if (row.email !== a.email) return { ok: false, reason: "wrong-email" };
      if (!(await exists(db, o, row.organizationId)) || !(await exists(db, users, a.userId)))
        return { ok: false, reason: "not-found" };
      if (await memberOf(db, row.organizationId, a.userId)) return { ok: false, reason: "exists" };
      return { ok: false, reason: "limit" };
    },
    async settleInvitation(id, status) {
      return (
        (
          await db
            .update(i)
            .set({ status })
            .where(and(eq(i.id, id), eq(i.status, "pending")))
            .returning()
        )[0] ?? null
      );
    },
  };
}
