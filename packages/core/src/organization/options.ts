import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, group, optional, shapeOf, type InputOf } from "../config/schema.ts";
import type { Permissions } from "../ports/records.ts";
import type { UserView } from "../session/session.ts";
import type { RoleTable } from "../kernel/role-table.ts";
import { resolveRoles } from "./roles.ts";

/** The organization about to be created, as `beforeOrganizationCreated` sees it. */
export interface OrganizationDraft {
  name: string;
  slug: string;
  logo: string | null;
  metadata: Record<string, unknown>;
}

/** The membership about to be written, as `beforeMemberAdded` sees it. */
export interface MemberDraft {
  organizationId: string;
  userId: string;
  role: string;
}

/** Where a member is being added: the creator of an organization, an accepted invitation, or `auth.api.addMember`. */
export type MemberAddPath = "create-organization" | "accept-invitation" | "add-member";

/** `T` now or later; `void` so that a function returning nothing is a valid hook. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing accepts; only void types that.
type Awaitable<T> = T | void | Promise<T | void>;

/** `hooks.beforeOrganizationCreated`: may refuse (`false`) or amend (`{ name, slug, logo, metadata }`) a new organization. */
export type BeforeOrganizationCreated = (
  organization: OrganizationDraft,
  context: { user: UserView },
) => Awaitable<Partial<OrganizationDraft> | boolean | undefined>;

/** `hooks.beforeMemberAdded`: may refuse (`false`) a membership about to be written, the creator's included. */
export type BeforeMemberAdded = (
  member: MemberDraft,
  context: { path: MemberAddPath; user: UserView },
) => Awaitable<boolean | undefined>;

/** The hooks of `organizations({ hooks })`: app code that may refuse or amend a write before it happens. */
export interface OrganizationHooks {
  beforeOrganizationCreated?: BeforeOrganizationCreated;
  beforeMemberAdded?: BeforeMemberAdded;
}

/** Who may create organizations: everyone signed in (`true`), nobody over HTTP (`false`), or as the function says. */
export type AllowUserToCreate = boolean | ((user: UserView) => boolean | Promise<boolean>);

const isFunction = (value: unknown, field: string) => {
  if (typeof value !== "function") throw new AuthConfigError(field, "must be a function");
};

const isRoles = (value: unknown, field: string) => void resolveRoles(value as Record<string, Permissions>, field);

/** The one definition of `organizations({...})`'s options: type, default, check, docs row (docs/options.md). */
export const ORGANIZATIONS_SCHEMA = {
  /**
   * custom roles and extra statements, `{ billing: { billing: ["read"] }, member: { project: ["read"] } }`: a
   * built-in name (`owner`, `admin`, `member`) adds to its statements, a new name is a new role; `owner` can
   * always do what any role can
   * @defaultValue `owner`, `admin`, `member` (docs/organizations.md)
   */
  roles: optional<Record<string, Permissions>>({ check: isRoles }),
  /**
   * whether a signed-in user may create organizations (`POST /organization/create`): `true`, `false`, or
   * `(user) => boolean`; `auth.api.createOrganization` is not limited by it
   */
  allowUserToCreate: defaulted<AllowUserToCreate>(true, {
    check: (value, field) => {
      if (typeof value !== "boolean" && typeof value !== "function")
        throw new AuthConfigError(field, "must be a boolean or a function");
    },
  }),
  /** the most members an organization may have (invitations accepted beyond it: 409 `MEMBERSHIP_LIMIT_REACHED`) */
  membershipLimit: defaulted<number>(100, {
    check: (value, field) => {
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 1_000_000)
        throw new AuthConfigError(field, "must be an integer from 1 to 1000000");
    },
  }),
  /** how long an invitation can be accepted (`"48h"`, `"7d"`, or milliseconds) */
  invitationExpiresIn: defaulted<Duration>("48h", {
    check: (value, field) => {
      const ms = parseDuration(value, field);
      if (ms < 60_000 || ms > 90 * 24 * 3_600_000) throw new AuthConfigError(field, "must be from 1m to 90d");
    },
  }),
  /**
   * the app's page the invitation email links to, with `?invitationId=...` added: a path (joined to `baseUrl`) or
   * an absolute URL of a trusted origin; the page signs the invitee in and posts `/organization/accept-invitation`
   */
  invitationURL: defaulted<string>("/accept-invitation", {
    check: (value, field) => {
      if (typeof value !== "string" || value === "") throw new AuthConfigError(field, "must be a path or a URL");
    },
  }),
  /** app code that may refuse or amend a write before it happens (docs/organizations.md) */
  hooks: group({
    /**
     * `async (organization, { user })` before an organization is inserted: `false` refuses (403
     * `ORGANIZATION_CREATION_REJECTED`); `{ name, slug, logo, metadata }` amends it
     */
    beforeOrganizationCreated: optional<BeforeOrganizationCreated>({
      check: isFunction,
    }),
    /**
     * `async (member, { path, user })` before a membership is written (the creator, an accepted invitation,
     * `auth.api.addMember`): `false` refuses (403 `MEMBER_ADD_REJECTED`)
     */
    beforeMemberAdded: optional<BeforeMemberAdded>({ check: isFunction }),
  }),
};

/**
 * `organizations({...})` options.
 *
 * @example
 * const options: OrganizationsOptions = { roles: { billing: { billing: ["read"] } }, invitationExpiresIn: "48h" };
 */
export type OrganizationsOptions = InputOf<typeof ORGANIZATIONS_SCHEMA>;

/** Every key `organizations({...})` accepts (from `ORGANIZATIONS_SCHEMA`). */
export const ORGANIZATIONS_OPTION_SHAPE = shapeOf(ORGANIZATIONS_SCHEMA);

/**
 * `organizations()` options with defaults filled.
 *
 * @example
 * resolveOrganizationsOptions({}).invitationExpiresInMs; // 172800000
 */
export interface ResolvedOrganizationsOptions {
  roles: RoleTable;
  allowUserToCreate: AllowUserToCreate;
  membershipLimit: number;
  invitationExpiresInMs: number;
  invitationURL: string;
  hooks: OrganizationHooks;
}

/**
 * Validates `organizations()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveOrganizationsOptions({ membershipLimit: 10 }).membershipLimit; // 10
 */
export function resolveOrganizationsOptions(options: OrganizationsOptions): ResolvedOrganizationsOptions {
  const o = applySchema(ORGANIZATIONS_SCHEMA, options, "organizations");
  return {
    roles: resolveRoles(o.roles, "organizations.roles"),
    allowUserToCreate: o.allowUserToCreate,
    membershipLimit: o.membershipLimit,
    invitationExpiresInMs: parseDuration(o.invitationExpiresIn, "organizations.invitationExpiresIn"),
    invitationURL: o.invitationURL,
    hooks: {
      ...(o.hooks.beforeOrganizationCreated ? { beforeOrganizationCreated: o.hooks.beforeOrganizationCreated } : {}),
      ...(o.hooks.beforeMemberAdded ? { beforeMemberAdded: o.hooks.beforeMemberAdded } : {}),
    },
  };
}
