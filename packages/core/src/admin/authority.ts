// Who the admin API acts for and on: an admin by server-written data only, and the user a call names.
import { AuthError, invalidField } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { UserRecord } from "../ports/records.ts";
import { rolesOf } from "./view.ts";
import type { ResolvedAdminOptions } from "./options.ts";

export const userNotFound = () => new AuthError("NOT_FOUND", "No such user");

/** Whether `user` is an admin: a role of theirs is in `adminRoles`, or their id is in `adminUserIds`. */
export function isAdminUser(options: ResolvedAdminOptions, user: UserRecord): boolean {
  if (options.adminUserIds.includes(user.id)) return true;
  return rolesOf(user).some((role) => options.adminRoles.includes(role));
}

/** The user a call names (`userId`): 400 when it is not a user id, 404 `NOT_FOUND` when there is no such user. */
export async function findUser(ctx: AuthContext, userId: unknown): Promise<UserRecord> {
  if (typeof userId !== "string" || userId === "" || userId.length > 255)
    throw invalidField("userId", "userId must be a user id");
  const user = await ctx.store.users.findById(userId);
  if (!user) throw userNotFound();
  return user;
}
