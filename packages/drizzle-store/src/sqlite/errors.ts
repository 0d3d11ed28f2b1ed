import { errorChain, stringField, type UserConflict } from "../driver-error.ts";

// SQLite names the columns, not the index: "UNIQUE constraint failed: users.email".
const USER_COLUMNS: Record<string, UserConflict> = { "users.email": "email", "users.username": "username" };

// D1 reports no error code: its messages carry SQLite's, "UNIQUE constraint failed: users.email: SQLITE_CONSTRAINT
// (extended: SQLITE_CONSTRAINT_UNIQUE)", behind a "D1_ERROR: " prefix on the outer error.
const D1_UNIQUE = /UNIQUE constraint failed: ([\w.]+): SQLITE_CONSTRAINT\b/;

/**
 * Maps a SQLite unique violation (libSQL's coded error or D1's message) on the users' email or username column to
 * the field. Anything else (another constraint, another error) is not a user conflict: null, and the caller rethrows.
 */
export function userConflictOf(error: unknown): UserConflict | null {
  for (const e of errorChain(error)) {
    const code = stringField(e, "extendedCode") ?? stringField(e, "code");
    const message = stringField(e, "message") ?? "";
    const d1 = code === undefined ? D1_UNIQUE.exec(message) : null;
    if (d1?.[1]) return USER_COLUMNS[d1[1]] ?? null;
    const match = /UNIQUE constraint failed: ([\w.]+)/.exec(message);
    if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT") continue;
    if (match?.[1]) return USER_COLUMNS[match[1]] ?? null;
  }
  return null;
}

/**
 * True for a foreign-key violation: libSQL's coded error (SQLITE_CONSTRAINT_FOREIGNKEY) or D1's message
 * ("FOREIGN KEY constraint failed: SQLITE_CONSTRAINT").
 */
export function isForeignKeyViolation(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const code = stringField(e, "extendedCode") ?? stringField(e, "code");
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return true;
    if (/FOREIGN KEY constraint failed/.test(stringField(e, "message") ?? "")) return true;
  }
  return false;
}

// Busy or locked past the busy timeout, or a remote server that cannot be reached: the database is unavailable.
const UNAVAILABLE =
  /^(SQLITE_BUSY|SQLITE_LOCKED|SQLITE_CANTOPEN|SQLITE_IOERR|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|SERVER_ERROR|HRANA_WEBSOCKET_ERROR)/;

/** True when a libSQL error means the database cannot answer now (busy past the timeout, I/O, network). */
export function isSqliteUnavailable(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const code = stringField(e, "extendedCode") ?? stringField(e, "code");
    if (code !== undefined && UNAVAILABLE.test(code)) return true;
  }
  return false;
}

// D1 reports through messages, not codes: busy or locked storage, the failures Cloudflare documents as retryable
// (a lost connection, an overloaded or reset database object, a transient issue on a remote node), and the
// runtime's own `internal error; reference = ...` (an exception inside workerd's D1 plumbing, not the statement:
// seen with two local workerd processes on one D1 file under load).
const D1_UNAVAILABLE =
  /SQLITE_BUSY|SQLITE_LOCKED|database is locked|Network connection lost|overloaded|exceeded timeout|object to be reset|transient issue|internal error; reference =/i;

/** True when a D1 error means the database cannot answer now (busy, overloaded, reset, unreachable). */
export function isD1Unavailable(error: unknown): boolean {
  for (const e of errorChain(error)) {
    if (D1_UNAVAILABLE.test(stringField(e, "message") ?? "")) return true;
  }
  return false;
}
