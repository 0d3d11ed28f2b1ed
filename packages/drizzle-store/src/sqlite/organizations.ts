import type { MemberRecord, OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { errorChain, stringField } from "../driver-error.ts";
import { apiKeys, invitations as i, members as m, organizations as o, sessions, users } from "./schema.ts";

const OWNER = "owner";

/** True for a unique violation on the organizations' slug index (libSQL and D1 both name the columns). */
function isSlugTaken(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const message = stringField(e, "message") ?? "";
    if (/UNIQUE constraint failed: organizations\.slug/.test(message)) return true;
  }
  return false;
}

/** Another owner of the organization than `userId`, as a condition on the row being written. */
const otherOwner = (organizationId: string, userId: string) =>
  sql`exists (select 1 from ${m} as others where others.organization_id = ${organizationId} and others.role = ${OWNER} and others.user_id <> ${userId})`;

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

const memberOf = async (db: SqliteDatabase, organizationId: string, userId: string) =>
  (
    await db
      .select()
      .from(m)
      .where(and(eq(m.organizationId, organizationId), eq(m.userId, userId)))
      .limit(1)
  )[0] ?? null;
const exists = async (db: SqliteDatabase, table: typeof o | typeof users, id: string) =>
  (await db.select({ id: table.id }).from(table).where(eq(table.id, id)).limit(1)).length > 0;
/** Fewer than `limit` members (no limit: always true), as a condition of the statement that adds one. */
const underLimit = (organizationId: SQL | string, limit: number | null): SQL =>
  limit === null ? sql`1` : sql`(select count(*) from ${m} where ${m.organizationId} = ${organizationId}) < ${limit}`;

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

function memberRows(
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

function invitationRows(
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
