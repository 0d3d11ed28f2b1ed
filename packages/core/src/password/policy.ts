import { AuthError } from "../errors/errors.ts";
import type { Logger } from "../logger/logger.ts";

/** Who the password is for: the user about to be created (no `id` yet) or the existing one. */
export interface PasswordPolicyUser {
  id: string | null;
  email: string;
  name: string | null;
  username: string | null;
}

/**
 * An app's own password rule: a message refuses the password with 400 `WEAK_PASSWORD` and that message; nothing
 * accepts it. May throw an `AuthError` (as `pwnedPasswords()` does with `PASSWORD_COMPROMISED`).
 *
 * @example
 * const check: PasswordCheck = (password, user) =>
 *   password.toLowerCase().includes(user.email.split("@")[0]!) ? "Do not use your email in the password" : undefined;
 */
export type PasswordCheck = (
  password: string,
  user: PasswordPolicyUser,
  context?: PasswordCheckContext,
) => CheckAnswer | Promise<CheckAnswer>;

/** What Latchkey hands a password check besides the password: the auth's `logger` for anything worth a line. */
export interface PasswordCheckContext {
  logger: Logger;
}

/** The check with the auth's logger bound, as the services call it (`null` stays `null`). */
export function withCheckContext(check: PasswordCheck | null, logger: Logger): PasswordCheck | null {
  return check && ((password, user) => check(password, user, { logger }));
}

/** A message refuses; nothing (also `void`: a function without `return`) accepts. */
// biome-ignore lint/suspicious/noConfusingVoidType: a check that returns nothing accepts; only void types that.
type CheckAnswer = string | null | undefined | void;

/**
 * Runs `emailPassword.passwordPolicy.check` (lengths are checked earlier, synchronously). A returned message is
 * 400 `WEAK_PASSWORD`; a thrown `AuthError` passes through; any other throw is a message-free 500, logged once.
 */
export async function enforcePasswordCheck(
  check: PasswordCheck | null,
  password: string,
  user: PasswordPolicyUser,
): Promise<void> {
  if (!check) return;
  let answer: unknown;
  try {
    answer = await check(password, { id: user.id, email: user.email, name: user.name, username: user.username });
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("INTERNAL_ERROR", "The password policy check failed", { cause: error });
  }
  if (typeof answer === "string" && answer.length > 0) throw new AuthError("WEAK_PASSWORD", answer.slice(0, 300));
}
