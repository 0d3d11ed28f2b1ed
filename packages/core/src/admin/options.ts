import { AuthConfigError } from "../errors/errors.ts";
import { applySchema, defaulted, optional, shapeOf, type InputOf } from "../config/schema.ts";
import { parseDuration, type Duration } from "../config/duration.ts";

/**
 * `admin()` options with defaults filled.
 *
 * @example
 * const { adminRoles } = resolveAdminOptions({}); // ["admin"]
 */
export interface ResolvedAdminOptions {
  /** Roles (`appMetadata.role`) whose users are admins. */
  adminRoles: string[];
  /** Users who are admins whatever their role (the first admin of a deployment, before any role is set). */
  adminUserIds: string[];
  /** How long an impersonation session lives (it never slides). */
  impersonationSessionMs: number;
  /** The role `/admin/create-user` gives when none is named; null: none (`appMetadata.role` unset). */
  defaultRole: string | null;
  /** The list's `total` is counted no further than this; null: always counted in full. */
  listUsersCountLimit: number | null;
}

const ROLE = /^[A-Za-z0-9_-]{1,64}$/;

const stringList = (what: string, pattern: RegExp | null) => (value: unknown, field: string) => {
  if (!Array.isArray(value)) throw new AuthConfigError(field, `must be an array of ${what}`);
  for (const [i, item] of value.entries())
    if (typeof item !== "string" || item === "" || item.length > 255 || (pattern !== null && !pattern.test(item)))
      throw new AuthConfigError(`${field}[${i}]`, `must be ${what.replace(/s$/, "")}`);
};

/** The one definition of `admin({...})`'s options: type, default, check, docs row (docs/options.md). */
export const ADMIN_SCHEMA = {
  /** the roles (`appMetadata.role`, a string or an array of strings, written only by server code) that are admins */
  adminRoles: defaulted<string[]>(["admin"], { check: stringList("role names (letters, digits, _ and -)", ROLE) }),
  /**
   * user ids that are admins whatever their role: the first admin of a deployment (or `latchkey admin make-admin`)
   * @defaultValue `[]`
   */
  adminUserIds: defaulted<string[]>([], { check: stringList("user ids", null) }),
  /** how long a session started by `/admin/impersonate-user` lives; it never slides */
  impersonationSessionDuration: defaulted<Duration>("1h", {
    check: (value, field) => {
      const ms = parseDuration(value, field);
      if (ms < 60_000 || ms > 86_400_000) throw new AuthConfigError(field, "must be between 1 minute and 1 day");
    },
  }),
  /** the role `/admin/create-user` gives a user when the request names none; unset: no role */
  defaultRole: optional<string>({
    check: (value, field) => {
      if (typeof value !== "string" || !ROLE.test(value))
        throw new AuthConfigError(field, "must be a role name (letters, digits, _ and -)");
    },
  }),
  /**
   * how far `/admin/list-users` counts its `total`: beyond it the first page answers this number with
   * `totalExact: false` ("100,000+"), so a million users cost a first page no more than this many index entries;
   * `false`: always count in full
   */
  listUsersCountLimit: defaulted<number | false>(100_000, {
    check: (value, field) => {
      if (value === false) return;
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 1_000_000_000)
        throw new AuthConfigError(field, "must be an integer from 1 to 1000000000, or false");
    },
  }),
};

/**
 * `admin({...})` options.
 *
 * @example
 * const options: AdminOptions = { adminRoles: ["admin", "support"], adminUserIds: ["usr_1"] };
 */
export type AdminOptions = InputOf<typeof ADMIN_SCHEMA>;

/** Every key `admin({...})` accepts (from `ADMIN_SCHEMA`). */
export const ADMIN_OPTION_SHAPE = shapeOf(ADMIN_SCHEMA);

/**
 * Validates `admin()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveAdminOptions({ impersonationSessionDuration: "30m" }).impersonationSessionMs; // 1800000
 */
export function resolveAdminOptions(options: AdminOptions = {}): ResolvedAdminOptions {
  const o = applySchema(ADMIN_SCHEMA, options, "admin");
  return {
    adminRoles: [...new Set(o.adminRoles)],
    adminUserIds: [...new Set(o.adminUserIds)],
    impersonationSessionMs: parseDuration(o.impersonationSessionDuration, "admin.impersonationSessionDuration"),
    defaultRole: o.defaultRole ?? null,
    listUsersCountLimit: o.listUsersCountLimit === false ? null : o.listUsersCountLimit,
  };
}
