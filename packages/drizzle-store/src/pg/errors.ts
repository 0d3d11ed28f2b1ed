import { errorChain, stringField, type UserConflict } from "../driver-error.ts";

const USER_CONSTRAINTS: Record<string, UserConflict> = {
  users_email_unique: "email",
  users_username_unique: "username",
};

/**
 * Maps a PostgreSQL unique violation (SQLSTATE 23505) on the users' email or username index to the field.
 * Anything else (another constraint, another error) is not a user conflict: null, and the caller rethrows.
 */
export function userConflictOf(error: unknown): UserConflict | null {
  for (const e of errorChain(error)) {
    if (stringField(e, "code") !== "23505") continue;
    // postgres.js names the field `constraint_name`, node-postgres `constraint`.
    return USER_CONSTRAINTS[stringField(e, "constraint_name") ?? stringField(e, "constraint") ?? ""] ?? null;
  }
  return null;
}

/** True for a foreign-key violation (SQLSTATE 23503): a row that references a missing user. */
export function isForeignKeyViolation(error: unknown): boolean {
  for (const e of errorChain(error)) if (stringField(e, "code") === "23503") return true;
  return false;
}

// Socket-level failures (node-postgres and postgres.js both surface the errno code).
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ECONNABORTED",
  // postgres.js
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);
// SQLSTATEs that mean "the server cannot serve you now", not "your statement is wrong".
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown (pg_ctl stop / restart, pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down, recovery)
  "53300", // too_many_connections
  "57014", // query_canceled (statement_timeout)
  "25P03", // idle_in_transaction_session_timeout
]);
// node-postgres reports these without a code.
const UNAVAILABLE_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|query read timeout|not queryable|connection (?:is )?(?:closed|ended)|client was closed|cannot use a pool after calling end|connection refused/i;

/**
 * True when a PostgreSQL driver error means the database cannot be reached or is not answering in time
 * (refused, reset, timed out, shutting down, too many connections), as opposed to a bad statement or a
 * constraint violation. Works for node-postgres and postgres.js errors, wrapped by drizzle or not.
 */
export function isPgUnavailable(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const code = stringField(e, "code");
    if (code !== undefined && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith("08")))
      return true;
    const errno = stringField(e, "errno");
    if (errno !== undefined && NETWORK_CODES.has(errno)) return true;
    if (e instanceof Error && UNAVAILABLE_MESSAGES.test(e.message.split("\n")[0] ?? "")) return true;
    // AggregateError of several addresses (localhost -> ::1 and 127.0.0.1), each refused.
    if (e instanceof AggregateError && e.errors.length > 0 && e.errors.every((inner) => isPgUnavailable(inner)))
      return true;
  }
  return false;
}
