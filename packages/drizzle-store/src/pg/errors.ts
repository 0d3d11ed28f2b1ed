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
