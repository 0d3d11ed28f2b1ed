import type { Permissions } from "../ports/records.ts";
import { API_KEY_LIMITS } from "./limits.ts";

/** Resource and action names: 1..64 of `A-Z a-z 0-9 _ . : / -`. No wildcards: `*` would read as "everything". */
const PERMISSION_NAME = new RegExp(`^[A-Za-z0-9_.:/-]{1,${API_KEY_LIMITS.permissionName}}$`);
const MAX_PERMISSION_RESOURCES = API_KEY_LIMITS.permissionResources;
const MAX_PERMISSION_ACTIONS = API_KEY_LIMITS.permissionActions;

export type PermissionsCheck = { ok: true; value: Permissions } | { ok: false; message: string };

/**
 * Checks the shape of a permissions object (`{ resource: [actions] }`) and returns a clean copy with
 * duplicate actions removed. Names like `__proto__` are refused so a lookup can never reach the prototype.
 *
 * @example
 * import { normalizePermissions } from "@latchkey/core";
 * normalizePermissions({ files: ["read", "read"] }); // { ok: true, value: { files: ["read"] } }
 */
export function normalizePermissions(value: unknown): PermissionsCheck {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, message: "must be an object of resource -> actions" };
  const entries = Object.entries(value);
  if (entries.length > MAX_PERMISSION_RESOURCES)
    return { ok: false, message: `may name at most ${MAX_PERMISSION_RESOURCES} resources` };
  const out: Array<[string, string[]]> = [];
  for (const [resource, actions] of entries) {
    if (!PERMISSION_NAME.test(resource) || resource === "__proto__")
      return { ok: false, message: `has an invalid resource name "${resource.slice(0, 64)}"` };
    if (!Array.isArray(actions) || actions.length > MAX_PERMISSION_ACTIONS)
      return { ok: false, message: `.${resource} must be an array of at most ${MAX_PERMISSION_ACTIONS} actions` };
    for (const action of actions) {
      if (typeof action !== "string" || !PERMISSION_NAME.test(action) || action === "__proto__")
        return { ok: false, message: `.${resource} has an invalid action` };
    }
    out.push([resource, [...new Set(actions as string[])]]);
  }
  return { ok: true, value: Object.fromEntries(out) };
}

/**
 * True when `granted` covers `requested`: every requested action of every requested resource is present
 * (all-of). An empty request is always covered.
 *
 * @example
 * import { hasPermissions } from "@latchkey/core";
 * hasPermissions({ files: ["read", "write"] }, { files: ["read"] }); // true
 * hasPermissions({ files: ["read"] }, { files: ["read"], users: [] }); // false: no "users" resource
 */
export function hasPermissions(granted: Permissions, requested: Permissions): boolean {
  for (const resource of Object.keys(requested)) {
    if (!Object.hasOwn(granted, resource)) return false;
    const have = granted[resource]!;
    for (const action of requested[resource]!) if (!have.includes(action)) return false;
  }
  return true;
}
