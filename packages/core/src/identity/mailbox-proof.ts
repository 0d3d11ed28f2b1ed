import { invalidOtp } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { ProviderId, UserRecord } from "../ports/records.ts";
import { emit } from "../kernel/emit.ts";

/**
 * Marks a user's email verified because a code sent to it was just used. When the user was NOT verified yet,
 * nothing done before this proof can be trusted: whoever registered the address never showed they own it
 * (pre-account hijacking, Better Auth GHSA-qq9h-g4jm-xgf3). So every account except `keepProvider` is deleted
 * (e.g. an attacker-set password), every session is revoked, every API key of the user is revoked, and a second
 * factor (`twoFactor()`) and the passkeys (`passkeys()`) set up before the proof are removed.
 * Already verified users are returned unchanged.
 *
 * `signedInAs` is the session the proof arrived with, when it belongs to this same user: then the person holding
 * it signed in with the user's own credentials and has now shown the mailbox too, so accounts (the password),
 * API keys and that session are kept; only the user's other sessions are revoked.
 *
 * @example
 * const user = await proveMailbox(ctx, unverifiedUser, "EMAIL_OTP", meta); // user.emailVerified === true
 */
export async function proveMailbox(
  ctx: AuthContext,
  user: UserRecord,
  keepProvider: ProviderId | null,
  meta: RequestMeta,
  signedInAs: { userId: string; sessionId: string } | null = null,
): Promise<UserRecord> {
  if (user.emailVerified) return user;
  const { store } = ctx;
  const sameUser = signedInAs !== null && signedInAs.userId === user.id;
  let sessions: number;
  if (sameUser) {
    sessions = await ctx.sessions.revokeAll(user.id, signedInAs.sessionId);
  } else {
    // No provider is named "": null keeps none.
    await store.accounts.deleteAllExcept(user.id, keepProvider ?? "");
    sessions = await ctx.sessions.revokeAll(user.id);
    await revokeApiKeys(ctx, user.id, meta);
    // A second factor set up before the proof is the registrant's, not the mailbox owner's: left in place it would
    // lock the owner out of the account the proof just gave them.
    if (ctx.signInGate && (await ctx.signInGate.removeSecondFactor(store, user.id)))
      await emit(ctx, "TwoFactorDisabled", { userId: user.id, method: "email-proven" }, meta);
    // So is a passkey (`passkeys()`): the registrant's authenticator would sign in to the owner's account.
    await removePasskeys(ctx, user.id, meta);
  }
  const at = new Date(ctx.clock.now());
  const updated = await store.users.update(user.id, { emailVerified: true, updatedAt: at });
  if (!updated?.ok) throw invalidOtp();
  if (sessions > 0)
    await emit(
      ctx,
      "SessionRevoked",
      { userId: user.id, sessionId: null, reason: "email-proven", count: sessions },
      meta,
      at,
    );
  await emit(ctx, "EmailVerified", { userId: user.id, email: user.email }, meta, at);
  return updated.value;
}

/** Deletes every passkey of the user, each announced by `PasskeyRemoved`; a store without passkeys has none. */
async function removePasskeys(ctx: AuthContext, userId: string, meta: RequestMeta): Promise<void> {
  const passkeys = ctx.store.passkeys;
  if (!passkeys) return;
  // The ids come from the delete itself: a passkey inserted after a list and before the delete is named too.
  for (const passkeyId of await passkeys.deleteAllByUser(userId))
    await emit(ctx, "PasskeyRemoved", { userId, passkeyId }, meta);
}

/** Deletes every API key of the user (page by page); returns how many went. A store without API keys has none. */
async function revokeApiKeys(ctx: AuthContext, userId: string, meta: RequestMeta): Promise<number> {
  const keys = ctx.store.apiKeys;
  if (!keys) return 0;
  let revoked = 0;
  for (;;) {
    // Always the first page: deleting shifts the keyset; a page that deletes nothing ends the loop.
    const page = await keys.listByUser(userId, { limit: 100, cursor: null });
    let deleted = 0;
    for (const key of page.items) {
      if (!(await keys.delete(key.id, userId))) continue;
      deleted++;
      await emit(ctx, "ApiKeyRevoked", { keyId: key.id, userId }, meta);
    }
    revoked += deleted;
    if (deleted === 0) return revoked;
  }
}
