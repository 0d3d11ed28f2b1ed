import { AuthError } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { ApiKeyRecord, Permissions } from "../ports/records.ts";
import type { ApiKeyStore } from "../ports/store.ts";
import { hasPermissions } from "./permissions.ts";
import { roleGrants, type RoleTable } from "../kernel/role-table.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { invalidInput } from "./input.ts";

/** What `ApiKeyService`'s steps work with: the context, the resolved options and the API key port. */
export interface ApiKeyDeps {
  readonly ctx: AuthContext;
  readonly options: ResolvedApiKeysOptions;
  readonly keys: ApiKeyStore;
}

export const organizationNotFound = () =>
  new AuthError("ORGANIZATION_NOT_FOUND", "No such organization, or you are not a member of it");

/** The key `keyId` when `owner` holds it (`owner` null: any user's key); KEY_NOT_FOUND otherwise. */
export async function ownedKey(deps: ApiKeyDeps, keyId: unknown, owner: string | null): Promise<ApiKeyRecord> {
  const row = typeof keyId === "string" ? await deps.keys.findById(keyId) : null;
  if (!row || (owner !== null && row.userId !== owner)) throw new AuthError("KEY_NOT_FOUND", "No such API key");
  return row;
}

/**
 * The organization a new key is for (`organizationId`, `organizations()`): null when none is asked for; 404
 * `ORGANIZATION_NOT_FOUND` when `userId` is not a member of it (whether or not it exists).
 */
export async function organizationOf(
  deps: ApiKeyDeps,
  userId: string,
  organizationId: unknown,
): Promise<{ organizationId: string; role: string; roles: RoleTable } | null> {
  if (organizationId === undefined || organizationId === null) return null;
  if (typeof organizationId !== "string" || organizationId === "" || organizationId.length > 64)
    throw invalidInput("organizationId", "must be an organization's id");
  const roles = deps.ctx.organizationRoles;
  const organizations = deps.ctx.store.organizations;
  if (roles === null || !organizations)
    throw invalidInput("organizationId", "needs the organizations() plugin installed");
  const member = await organizations.findMember(organizationId, userId);
  if (!member) throw organizationNotFound();
  return { organizationId, role: member.role, roles };
}

export function assertGrantable(options: ResolvedApiKeysOptions, permissions: Permissions): void {
  if (!hasPermissions(options.grantablePermissions, permissions)) {
    throw new AuthError(
      "INSUFFICIENT_PERMISSIONS",
      "Those permissions cannot be granted to your own keys (see apiKeys({ grantablePermissions }))",
    );
  }
}

/**
 * What an owner may put on one of their keys: `grantablePermissions` on their own key; on an organization's key,
 * no more than their role in the organization grants now (404 `ORGANIZATION_NOT_FOUND` once they left it).
 */
export async function assertPermissionsFor(
  deps: ApiKeyDeps,
  userId: string,
  keyId: unknown,
  permissions: Permissions,
): Promise<void> {
  const current = await ownedKey(deps, keyId, userId);
  if (current.organizationId == null) return assertGrantable(deps.options, permissions);
  const organization = await organizationOf(deps, userId, current.organizationId);
  if (organization && !roleGrants(organization.roles, organization.role, permissions))
    throw new AuthError(
      "INSUFFICIENT_PERMISSIONS",
      "An organization's API key may carry only permissions your role in it grants",
    );
}
