import type { UserRecord } from "./records.ts";

/**
 * Whether `user`'s ban is in force at `at`: banned, and `banExpires` null (for ever) or later than `at`. The one
 * rule every store's session insert and the session check apply.
 *
 * @example
 * if (banInForce(user, new Date())) throw new AuthError("USER_BANNED", "This account is banned");
 */
export function banInForce(user: Pick<UserRecord, "banned" | "banExpires">, at: Date | number): boolean {
  if (!user.banned) return false;
  return user.banExpires === null || user.banExpires.getTime() > (typeof at === "number" ? at : at.getTime());
}
