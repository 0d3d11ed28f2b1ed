import { errorChain, stringField, type UserConflict } from "../driver-error.ts";

// SQLite names the columns, not the index: "UNIQUE constraint failed: users.email".
const USER_COLUMNS: Record<string, UserConflict> = { "users.email": "email", "users.username": "username" };

/**
 * Maps a SQLite unique violation on the users' email or username column to the field.
 * Anything else (another constraint, another error) is not a user conflict: null, and the caller rethrows.
 */
export function userConflictOf(error: unknown): UserConflict | null {
  for (const e of errorChain(error)) {
    const code = stringField(e, "extendedCode") ?? stringField(e, "code");
    const match = /UNIQUE constraint failed: ([\w.]+)/.exec(stringField(e, "message") ?? "");
    if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT") continue;
    if (match?.[1]) return USER_COLUMNS[match[1]] ?? null;
  }
  return null;
}
