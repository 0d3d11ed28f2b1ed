import type { Permissions } from "../ports/records.ts";

// Roles as data, below every feature: `organizations()` builds the table, the context carries it, and API keys of an
// organization are cut down by it on every verify.

/** Role name -> resource -> actions (a set), after merging the defaults with `organizations({ roles })`. */
export type RoleTable = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

/** Whether `role` grants every action of `wanted` (an empty statement is granted to every member). */
export function roleGrants(roles: RoleTable, role: string, wanted: Permissions): boolean {
  const resources = roles.get(role);
  if (!resources) return false;
  for (const [resource, actions] of Object.entries(wanted)) {
    const granted = resources.get(resource);
    for (const action of actions) if (!granted?.has(action)) return false;
  }
  return true;
}

/**
 * What an organization's API key may do now: its own `permissions` cut down to the statements of its creator's
 * current `role` (a resource the role lacks goes, and so do the actions it does not grant). Null role: nothing.
 */
export function capByRole(roles: RoleTable, role: string | null, permissions: Permissions): Permissions {
  const resources = role === null ? undefined : roles.get(role);
  const out: Permissions = {};
  if (!resources) return out;
  for (const [resource, actions] of Object.entries(permissions)) {
    const granted = resources.get(resource);
    if (granted) out[resource] = actions.filter((action) => granted.has(action));
  }
  return out;
}
