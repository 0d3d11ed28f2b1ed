import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { Permissions, UserRecord } from "../ports/records.ts";
import { AuthError } from "../errors/errors.ts";
import {
  resolveOrganizationsOptions,
  type OrganizationsOptions,
  type ResolvedOrganizationsOptions,
} from "./options.ts";
import { OrganizationService } from "./organization.ts";
import type { CreateOrganizationInput } from "./input.ts";
import type { FullOrganizationView, InvitationView, MemberView, MembershipView, OrganizationView } from "./view.ts";

/**
 * `auth.api` operations of organizations (trusted server calls, no HTTP, no rate limit; the last-owner rule and
 * the membership limit still hold).
 *
 * @example
 * const allowed = await auth.api.hasPermission({ userId, organizationId, permissions: { project: ["create"] } });
 */
export interface OrganizationApi {
  /** Whether the user is a member whose role grants every action of `permissions`. */
  hasPermission(input: { userId: string; organizationId: string; permissions: Permissions }): Promise<boolean>;
  /** Creates an organization owned by `userId` (not limited by `allowUserToCreate`; the hooks run). */
  createOrganization(
    input: CreateOrganizationInput & { userId: string },
    meta?: RequestMeta,
  ): Promise<OrganizationView>;
  /** Adds a user as a member directly, without an invitation. */
  addMember(input: { userId: string; organizationId: string; role: string }, meta?: RequestMeta): Promise<MemberView>;
  listOrganizations(input: { userId: string }): Promise<MembershipView[]>;
  getFullOrganization(input: { userId: string; organizationId: string }): Promise<FullOrganizationView>;
  listInvitations(input: { userId: string; organizationId?: string }): Promise<InvitationView[]>;
}

/**
 * What `organizations()` installs: `core.plugins.get(ORGANIZATIONS_PLUGIN_ID)`.
 *
 * @example
 * const { service } = auth.core.plugins.get(ORGANIZATIONS_PLUGIN_ID)!;
 */
export type OrganizationsInstalled = InstalledPlugin<
  OrganizationService,
  OrganizationApi,
  ResolvedOrganizationsOptions
>;

/**
 * The id `organizations()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(ORGANIZATIONS_PLUGIN_ID);
 */
export const ORGANIZATIONS_PLUGIN_ID = "organizations" as PluginId<"organizations", OrganizationsInstalled>;

/**
 * `organizations()` needs the `organizations` store port.
 *
 * @example
 * const plugin: OrganizationsPlugin = organizations();
 */
export type OrganizationsPlugin = AuthPlugin<"organizations", OrganizationsInstalled, "organizations">;

/**
 * Organizations (workspaces, tenants) with members, roles and invitations by email: the `/organization/*` routes
 * (Better Auth's names), `auth.api.hasPermission`, and the active organization of a session (`/token` JWTs then
 * carry `org_id` and `org_role`). Options are validated here (AuthConfigError `organizations.<field>`).
 *
 * @example
 * import { organizations } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [organizations({ roles: { billing: { billing: ["read"] } } })] });
 */
export function organizations(options: OrganizationsOptions = {}): OrganizationsPlugin {
  const resolved = resolveOrganizationsOptions(options);
  return {
    id: ORGANIZATIONS_PLUGIN_ID,
    requires: ["organizations"],
    init(ctx, ports) {
      const service = new OrganizationService(ctx, resolved, ports.organizations);
      // What an organization's API keys may carry (`apiKeys()` reads it on create and on every verify of one).
      ctx.organizationRoles = resolved.roles;
      const userOf = async (userId: string): Promise<UserRecord> => {
        const user = typeof userId === "string" ? await ctx.store.users.findById(userId) : null;
        if (!user) throw new AuthError("MEMBER_NOT_FOUND", "No such user");
        return user;
      };
      const api: OrganizationApi = {
        hasPermission: (input) => service.hasPermission(input),
        createOrganization: async ({ userId, ...input }, meta) =>
          service.create(await userOf(userId), input, orServerCall(meta), { checkAllowed: false }),
        addMember: (input, meta) => service.addMember(input, orServerCall(meta)),
        listOrganizations: ({ userId }) => service.list(userId),
        getFullOrganization: ({ userId, organizationId }) => service.getFull(userId, { organizationId }),
        listInvitations: async ({ userId, organizationId }) =>
          service.listInvitations(await userOf(userId), organizationId === undefined ? null : { organizationId }),
      };
      return { service, api, options: resolved };
    },
  };
}
