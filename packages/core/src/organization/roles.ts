import { AuthConfigError } from "../errors/errors.ts";
import type { Permissions } from "../ports/records.ts";
import type { RoleTable } from "../kernel/role-table.ts";

/** The role an organization always keeps at least one member with (the last-owner rule). */
export const OWNER_ROLE = "owner";

/**
 * What the built-in roles may do. `owner`: everything; `admin`: everything but deleting the organization;
 * `member`: nothing beyond reading (members, pending invitations) and leaving. Routes check these statements.
 */
export const DEFAULT_ROLES: Readonly<Record<"owner" | "admin" | "member", Permissions>> = {
  owner: {
    organization: ["update", "delete"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    apiKey: ["create", "read"],
  },
  admin: {
    organization: ["update"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    apiKey: ["create", "read"],
  },
  member: {},
};

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** A resource may be camel-cased, as Better Auth's `apiKey` is. */
const RESOURCE = /^[a-z][a-zA-Z0-9_-]{0,31}$/;

/** The value under `key`, made and stored first when missing. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}

/**
 * The roles of `organizations({ roles })` merged over the defaults: a named role adds its statements to the
 * built-in one of that name (the built-in statements stay: an `owner` can always manage the organization); a new
 * name is a new role; `owner` also gets every statement of every other role, so no role can do what an owner cannot.
 */
export function resolveRoles(custom: Record<string, Permissions> | undefined, field: string): RoleTable {
  const table = new Map<string, Map<string, Set<string>>>();
  const add = (role: string, statements: Permissions) => {
    const resources = entry(table, role, () => new Map<string, Set<string>>());
    for (const [resource, actions] of Object.entries(statements)) {
      const set = entry(resources, resource, () => new Set<string>());
      for (const action of actions) set.add(action);
    }
  };
  for (const [role, statements] of Object.entries(DEFAULT_ROLES)) add(role, statements);
  if (custom !== undefined) {
    if (custom === null || typeof custom !== "object" || Array.isArray(custom))
      throw new AuthConfigError(field, "must be an object of role name -> { resource: [actions] }");
    for (const [role, statements] of Object.entries(custom)) {
      if (!NAME.test(role))
        throw new AuthConfigError(`${field}.${role}`, "a role name is 1 to 32 lower-case letters, digits, - or _");
      checkStatements(statements, `${field}.${role}`);
      add(role, statements);
    }
  }
  const owner = table.get(OWNER_ROLE)!;
  for (const [role, resources] of table) {
    if (role === OWNER_ROLE) continue;
    for (const [resource, actions] of resources) {
      const set = entry(owner, resource, () => new Set<string>());
      for (const action of actions) set.add(action);
    }
  }
  return table;
}

/** Checks a permission statement (`{ project: ["create"] }`): resources and actions are short non-empty strings. */
export function checkStatements(value: unknown, field: string): asserts value is Permissions {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new AuthConfigError(field, "must be an object of resource -> [actions]");
  for (const [resource, actions] of Object.entries(value)) {
    if (!RESOURCE.test(resource))
      throw new AuthConfigError(
        `${field}.${resource}`,
        "a resource is 1 to 32 letters, digits, - or _, starting with a lower-case letter",
      );
    if (!Array.isArray(actions) || actions.some((a) => typeof a !== "string" || !NAME.test(a)))
      throw new AuthConfigError(
        `${field}.${resource}`,
        "must be an array of actions (1 to 32 lower-case letters, digits, - or _)",
      );
  }
}

/** The role's statements as plain JSON (`{ resource: [actions] }`, sorted). */
export function statementsOf(roles: RoleTable, role: string): Permissions {
  const out: Permissions = {};
  for (const [resource, actions] of roles.get(role) ?? []) out[resource] = [...actions].sort();
  return out;
}
