import type { AuthContext } from "../context/context.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import type { MemberRecord, OrganizationRecord, Permissions, UserRecord } from "../ports/records.ts";
import type { OrganizationStore } from "../ports/store.ts";
import { toUserView } from "../session/session.ts";
import type { MemberAddPath, ResolvedOrganizationsOptions } from "./options.ts";
import { roleGrants } from "../kernel/role-table.ts";
import { SLUG, type OrganizationRef } from "./input.ts";
import { forbidden, notFound } from "./refusals.ts";

/** What `OrganizationService`'s steps work with: the context, the resolved options and the organizations port. */
export interface OrganizationDeps {
  readonly ctx: AuthContext;
  readonly options: ResolvedOrganizationsOptions;
  readonly store: OrganizationStore;
}

export function checkRole(options: ResolvedOrganizationsOptions, role: unknown, field = "role"): string {
  if (typeof role !== "string" || !options.roles.has(role))
    throw new AuthError("ROLE_NOT_FOUND", `${field} must be one of: ${[...options.roles.keys()].join(", ")}`, {
      details: [{ path: field, message: "unknown role" }],
    });
  return role;
}

/** The clock's now, as a `Date`. */
export function clockNow(deps: OrganizationDeps): Date {
  return new Date(deps.ctx.clock.now());
}

/** The caller's membership of the organization (by id or slug); 404 `ORGANIZATION_NOT_FOUND` when not a member. */
export async function membership(
  deps: OrganizationDeps,
  userId: string,
  ref: OrganizationRef,
): Promise<{ organization: OrganizationRecord; member: MemberRecord }> {
  const organization = await resolve(deps, ref);
  if (!organization) throw notFound();
  const member = await deps.store.findMember(organization.id, userId);
  if (!member) throw notFound();
  return { organization, member };
}

async function resolve(deps: OrganizationDeps, ref: OrganizationRef): Promise<OrganizationRecord | null> {
  if (typeof ref.organizationId === "string" && ref.organizationId !== "")
    return ref.organizationId.length > 64 ? null : deps.store.findById(ref.organizationId);
  if (typeof ref.organizationSlug === "string" && ref.organizationSlug !== "")
    return SLUG.test(ref.organizationSlug) ? deps.store.findBySlug(ref.organizationSlug) : null;
  throw invalidField("organizationId", "organizationId (or organizationSlug) is required");
}

/** A membership whose role grants `permissions`: 404 for outsiders, 403 `INSUFFICIENT_PERMISSIONS` for members. */
export async function authorized(
  deps: OrganizationDeps,
  userId: string,
  ref: OrganizationRef,
  permissions: Permissions,
) {
  const found = await membership(deps, userId, ref);
  if (!roleGrants(deps.options.roles, found.member.role, permissions)) throw forbidden();
  return found;
}

export async function beforeMemberAdded(
  deps: OrganizationDeps,
  member: MemberRecord,
  path: MemberAddPath,
  user: UserRecord,
): Promise<void> {
  const hook = deps.options.hooks.beforeMemberAdded;
  if (!hook) return;
  const answer = await runHook("beforeMemberAdded", () =>
    hook(
      { organizationId: member.organizationId, userId: member.userId, role: member.role },
      { path, user: toUserView(user) },
    ),
  );
  if (answer === false) throw new AuthError("MEMBER_ADD_REJECTED", "This member may not be added");
}

/** Runs an app hook: an `AuthError` passes through; any other throw becomes a message-free 500. */
export async function runHook<T>(name: string, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("INTERNAL_ERROR", `The ${name} hook failed`, { cause: error });
  }
}
