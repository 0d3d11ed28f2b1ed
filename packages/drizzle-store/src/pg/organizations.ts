import type { MemberRecord, OrganizationStore, OwnerGuardedResult } from "@latchkey/core";
import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import type { PgDatabase } from "./database.ts";
import { errorChain, stringField } from "../driver-error.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { invitations as i, members as m, organizations as o, sessions, users } from "./schema.ts";

const OWNER = "owner";

/** True for a unique violation (SQLSTATE 23505) on the organizations' slug index. */
function isSlugTaken(error: unknown): boolean {
  for (const e of errorChain(error)) {
    if (stringField(e, "code") !== "23505") continue;
    return (stringField(e, "constraint_name") ?? stringField(e, "constraint")) === "organizations_slug_unique";
  }
  return false;
}

/** Locks the organization's row for the rest of the transaction; false when it is gone. */
async function lockOrganization(tx: PgDatabase, id: string): Promise<boolean> {
  return (await tx.select({ id: o.id }).from(o).where(eq(o.id, id)).for("update")).length > 0;
}

async function countMembers(tx: PgDatabase, organizationId: string): Promise<number> {
  const [{ n } = { n: 0 }] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(m)
    .where(eq(m.organizationId, organizationId));
  return n;
}

async function hasOtherOwner(tx: PgDatabase, organizationId: string, userId: string): Promise<boolean> {
  const rows = await tx
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.organizationId, organizationId), eq(m.role, OWNER), ne(m.userId, userId)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Deletes, inside the caller's transaction, the organizations whose only owner `userId` is (their members and
 * invitations go by ON DELETE CASCADE, their sessions' active organization by ON DELETE SET NULL). Locks the rows
 * of every organization the user owns first, in id order, so a concurrent owner change of one waits.
 */
export async function deleteSoleOwnedOrganizations(tx: PgDatabase, userId: string): Promise<void> {
  const owned = await tx
    .select({ id: o.id })
    .from(o)
    .innerJoin(m, eq(m.organizationId, o.id))
    .where(and(eq(m.userId, userId), eq(m.role, OWNER)))
    .orderBy(asc(o.id))
    .for("update", { of: o });
  for (const { id } of owned) if (!(await hasOtherOwner(tx, id, userId))) await tx.delete(o).where(eq(o.id, id));
}

function organizationRows(
  db: PgDatabase,
): Pick<OrganizationStore, "create" | "findById" | "findBySlug" | "update" | "delete" | "listByUser" | "setActive"> {
  return {
    async create(organization, owner) {
      try {
        return await db.transaction(async (tx) => {
          const written = await tx
            .insert(o)
            .values(organization)
            .onConflictDoNothing({ target: o.slug })
            .returning({ id: o.id });
          if (written.length === 0) return "slug-taken" as const;
          await tx.insert(m).values(owner);
          return "created" as const;
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) return "owner-gone";
        throw error;
      }
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
      // Members and invitations cascade; sessions' active organization is set null by its foreign key.
      return (await db.delete(o).where(eq(o.id, id)).returning({ id: o.id })).length > 0;
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
          ? sql`true`
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
  db: PgDatabase,
): Pick<OrganizationStore, "findMember" | "listMembers" | "addMember" | "updateMemberRole" | "removeMember"> {
  const guarded = async (
    organizationId: string,
    userId: string,
    change: (tx: PgDatabase, row: MemberRecord) => Promise<MemberRecord>,
    demotes: (row: MemberRecord) => boolean,
  ): Promise<OwnerGuardedResult> =>
    db.transaction(async (tx) => {
      if (!(await lockOrganization(tx, organizationId))) return { ok: false, reason: "not-found" };
      const [row] = await tx
        .select()
        .from(m)
        .where(and(eq(m.organizationId, organizationId), eq(m.userId, userId)));
      if (!row) return { ok: false, reason: "not-found" };
      if (row.role === OWNER && demotes(row) && !(await hasOtherOwner(tx, organizationId, userId)))
        return { ok: false, reason: "last-owner" };
      return { ok: true, member: await change(tx, row), previousRole: row.role };
    });

  return {
    async findMember(organizationId, userId) {
      return (
        (
          await db
            .select()
            .from(m)
            .where(and(eq(m.organizationId, organizationId), eq(m.userId, userId)))
            .limit(1)
        )[0] ?? null
      );
    },
    async listMembers(organizationId) {
      return db
        .select({ member: m, user: users })
        .from(m)
        .innerJoin(users, eq(users.id, m.userId))
        .where(eq(m.organizationId, organizationId))
        .orderBy(asc(m.createdAt), asc(m.id));
    },
    async addMember(member, limit) {
      try {
        return await db.transaction(async (tx) => {
          if (!(await lockOrganization(tx, member.organizationId))) return "organization-gone" as const;
          const existing = await tx
            .select({ id: m.id })
            .from(m)
            .where(and(eq(m.organizationId, member.organizationId), eq(m.userId, member.userId)));
          if (existing.length > 0) return "exists" as const;
          if (limit !== null && (await countMembers(tx, member.organizationId)) >= limit) return "limit" as const;
          await tx.insert(m).values(member);
          return "added" as const;
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) return "user-gone";
        throw error;
      }
    },
    updateMemberRole(organizationId, userId, role) {
      return guarded(
        organizationId,
        userId,
        async (tx, row) => (await tx.update(m).set({ role }).where(eq(m.id, row.id)).returning())[0]!,
        () => role !== OWNER,
      );
    },
    removeMember(organizationId, userId) {
      return guarded(
        organizationId,
        userId,
        async (tx, row) => {
          await tx.delete(m).where(eq(m.id, row.id));
          return row;
        },
        () => true,
      );
    },
  };
}

function invitationRows(
  db: PgDatabase,
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
      try {
        await db.insert(i).values(invitation);
        return true;
      } catch (error) {
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
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
      const first = (await db.select({ organizationId: i.organizationId }).from(i).where(eq(i.id, id)))[0];
      if (!first) return { ok: false, reason: "not-found" };
      try {
        return await db.transaction(async (tx) => {
          if (!(await lockOrganization(tx, first.organizationId))) return { ok: false, reason: "not-found" } as const;
          const [row] = await tx.select().from(i).where(eq(i.id, id)).for("update");
          if (!row) return { ok: false, reason: "not-found" } as const;
          if (row.status !== "pending") return { ok: false, reason: "not-pending" } as const;
          if (row.expiresAt.getTime() <= acceptance.at.getTime()) return { ok: false, reason: "expired" } as const;
          if (row.email !== acceptance.email) return { ok: false, reason: "wrong-email" } as const;
          const existing = await tx
            .select({ id: m.id })
            .from(m)
            .where(and(eq(m.organizationId, row.organizationId), eq(m.userId, acceptance.userId)));
          if (existing.length > 0) return { ok: false, reason: "exists" } as const;
          if (limit !== null && (await countMembers(tx, row.organizationId)) >= limit)
            return { ok: false, reason: "limit" } as const;
          const member: MemberRecord = {
            id: acceptance.memberId,
            organizationId: row.organizationId,
            userId: acceptance.userId,
            role: row.role,
            createdAt: acceptance.at,
          };
          await tx.insert(m).values(member);
          const [accepted] = await tx.update(i).set({ status: "accepted" }).where(eq(i.id, id)).returning();
          return { ok: true, member, invitation: accepted! } as const;
        });
      } catch (error) {
        // The user was deleted meanwhile: nothing was written.
        if (isForeignKeyViolation(error)) return { ok: false, reason: "not-found" };
        throw error;
      }
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
 * `OrganizationStore` over PostgreSQL: unique indexes decide slugs and memberships; every write that can change who
 * owns an organization, or how many members it has, locks the organization's row first (`SELECT ... FOR UPDATE`),
 * so those decisions are made one at a time per organization. An accept locks the organization, then the
 * invitation (the order a cascading delete of the organization takes too).
 */
export function organizationsPort(db: PgDatabase): OrganizationStore {
  return { ...organizationRows(db), ...memberRows(db), ...invitationRows(db) };
}
