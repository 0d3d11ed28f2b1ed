import { invalidField } from "../errors/errors.ts";

// An id Latchkey wrote (base64url) or an application imported (UUIDs, ULIDs, prefixed ids): printable ASCII.
const ID_SHAPE = /^[\x21-\x7e]{1,255}$/;

type FieldRule = { max: number; id?: true };

/**
 * The fields of an `auth.api` input object that name a row, an account or a secret, with the longest string each
 * may be. Each must be a string when present (null and undefined are left to the operation), so an object such as
 * `{ $ne: null }` never reaches a store as a filter.
 */
const FIELDS: Record<string, FieldRule> = {
  id: { max: 255, id: true },
  userId: { max: 255, id: true },
  keyId: { max: 255, id: true },
  sessionId: { max: 255, id: true },
  organizationId: { max: 255, id: true },
  email: { max: 320 },
  newEmail: { max: 320 },
  username: { max: 320 },
  token: { max: 4096 },
  otp: { max: 64 },
  otpForCurrent: { max: 64 },
  cursor: { max: 1024 },
  password: { max: 4096 },
  newPassword: { max: 4096 },
  currentPassword: { max: 4096 },
  purpose: { max: 64 },
};

// Listed once: every `auth.api` call (an API-key verify on each request) walks them.
const FIELD_LIST = Object.entries(FIELDS);

/** `auth.api` methods whose first argument itself is an id or a token. */
const POSITIONAL: Record<string, string> = {
  signOut: "token",
  getSession: "token",
  updateUser: "userId",
  deleteUser: "userId",
};

function checkString(value: unknown, field: string, rule: FieldRule): void {
  if (typeof value !== "string") throw invalidField(field, `${field} must be a string`);
  if (value.length > rule.max) throw invalidField(field, `${field} is too long`);
  if (rule.id && !ID_SHAPE.test(value)) throw invalidField(field, `${field} is not an id`);
}

/**
 * Checks the ids and identifiers of one `auth.api` call before it reaches a service: 400 `INVALID_REQUEST` naming
 * the field for a non-string or misshapen one. Server code is trusted, but its inputs often come from requests.
 *
 * @example
 * checkApiInput("revokeSessions", [{ userId: { $ne: null } }]); // throws INVALID_REQUEST (userId must be a string)
 */
export function checkApiInput(method: string, args: readonly unknown[]): void {
  const positional = POSITIONAL[method];
  if (positional !== undefined) checkString(args[0], positional, FIELDS[positional]!);
  // The input object: the first argument, or the second after a positional one.
  const arg = args[positional === undefined ? 0 : 1];
  if (arg === null || typeof arg !== "object" || Array.isArray(arg)) return;
  for (const [field, rule] of FIELD_LIST) {
    const value = (arg as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) checkString(value, field, rule);
  }
}
