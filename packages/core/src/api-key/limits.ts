/**
 * The size limits of an API key's caller-set fields, written once: core's validation (`input.ts`,
 * `permissions.ts`, `options.ts`) and the HTTP adapter's request schemas both read them.
 *
 * @example
 * z.string().max(API_KEY_LIMITS.name); // hono-adapter's NameField
 */
export const API_KEY_LIMITS = {
  /** Characters of a key's `name`. */
  name: 256,
  /** Characters of a key's `prefix` (at least 1, of `A-Z a-z 0-9 _`). */
  prefix: 16,
  /** Characters of a permission resource or action name. */
  permissionName: 64,
  /** Resources in one permissions object. */
  permissionResources: 64,
  /** Actions of one resource. */
  permissionActions: 64,
} as const;
