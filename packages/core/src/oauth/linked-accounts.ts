import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { AccountRecord } from "../ports/records.ts";
import type { SocialAccountStore } from "../ports/store.ts";
import type { AccountTokenBox, TokenField } from "./account-tokens.ts";
import type { GrantedTokens } from "./protocol-shapes.ts";
import type { ProviderClient } from "./protocol.ts";
import type { OAuthProfile, OAuthProvider } from "./providers.ts";
import type { LinkedAccountView, ProviderAccessToken } from "./social-shapes.ts";

/**
 * A user's linked accounts: linking a provider identity to the signed-in user, listing and unlinking them, and the
 * provider access token of one (refreshed when it has expired).
 */
export class LinkedAccounts {
  constructor(
    private readonly ctx: AuthContext,
    private readonly social: SocialAccountStore,
    private readonly tokens: AccountTokenBox,
    private readonly client: (providerId: unknown) => ProviderClient,
  ) {}

  /** Links the identity to the signed-in user who started `POST /link-social` (409 when it is someone else's). */
  async linkTo(
    userId: string,
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<void> {
    const found = await this.social.findByProviderAccount(provider.id, profile.id);
    if (found) {
      if (found.user.id !== userId)
        throw new AuthError("ACCOUNT_ALREADY_LINKED", "This provider account is linked to another user");
      await this.social.updateTokens(
        found.account.id,
        await this.tokens.sealedTokens(found.account.id, tokens, found.account),
      );
      return;
    }
    const linked = await this.social.link(await this.tokens.newLinkedAccount(userId, provider, profile, tokens));
    if (linked === "taken")
      throw new AuthError("ACCOUNT_ALREADY_LINKED", "This provider account is linked to another user");
    if (linked === "owner-gone") throw new AuthError("SESSION_NOT_FOUND", "The account no longer exists");
    await emit(this.ctx, "AccountLinked", { userId, providerId: provider.id }, meta);
  }

  /** The user's accounts (passwords and email codes included), without tokens. */
  async listAccounts(userId: string): Promise<LinkedAccountView[]> {
    const accounts = await this.ctx.store.accounts.listByUser(userId);
    return accounts.map((a) => ({
      id: a.id,
      providerId: a.providerId,
      accountId: a.accountId,
      scopes: a.scope ? a.scope.split(" ").filter(Boolean) : [],
      createdAt: a.createdAt.toISOString(),
      updatedAt: a.updatedAt.toISOString(),
    }));
  }

  /** The user's linked account of `providerId` (the one with `accountId` when given); 404 `ACCOUNT_NOT_FOUND`. */
  private async linkedAccount(userId: string, providerId: unknown, accountId: unknown): Promise<AccountRecord> {
    if (typeof providerId !== "string") throw invalidField("providerId", "providerId must be a string");
    if (accountId !== undefined && accountId !== null && typeof accountId !== "string")
      throw invalidField("accountId", "accountId must be a string");
    const matches = (await this.ctx.store.accounts.listByUser(userId)).filter(
      (a) => a.providerId === providerId && a.accountId !== null && (accountId == null || a.accountId === accountId),
    );
    const [account] = matches;
    if (!account) throw new AuthError("ACCOUNT_NOT_FOUND", "No such linked account");
    if (matches.length > 1) throw invalidField("accountId", "several accounts of this provider are linked: name one");
    return account;
  }

  /** Unlinks a provider identity; 409 `LAST_ACCOUNT` when it is the user's last way to sign in. */
  async unlink(
    userId: string,
    input: { providerId: string; accountId?: string | null },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    const account = await this.linkedAccount(userId, input?.providerId, input?.accountId);
    const result = await this.social.unlink(userId, account.id);
    if (result === "not-found") throw new AuthError("ACCOUNT_NOT_FOUND", "No such linked account");
    if (result === "last")
      throw new AuthError("LAST_ACCOUNT", "This is the account's last way to sign in: add another before removing it");
    await emit(this.ctx, "AccountUnlinked", { userId, providerId: account.providerId }, meta);
    return { success: true };
  }

  /**
   * A valid provider access token of the user's linked account: the stored one, or (when it has expired) a new
   * one from the stored refresh token, sealed and stored again.
   */
  async accessToken(
    userId: string,
    input: { providerId: string; accountId?: string | null },
  ): Promise<ProviderAccessToken> {
    const account = await this.linkedAccount(userId, input?.providerId, input?.accountId);
    const client = this.client(account.providerId);
    const open = (field: TokenField) => this.tokens.open(account, field);
    const now = this.ctx.clock.now();
    const expired = account.accessTokenExpiresAt !== null && account.accessTokenExpiresAt.getTime() <= now + 5_000;
    if (account.accessToken !== null && !expired) {
      return {
        accessToken: (await open("accessToken")) as string,
        accessTokenExpiresAt: account.accessTokenExpiresAt?.toISOString() ?? null,
        scopes: account.scope ? account.scope.split(" ") : [],
        idToken: await open("idToken"),
      };
    }
    const refreshToken = await open("refreshToken");
    if (refreshToken === null)
      throw new AuthError(
        "OAUTH_TOKEN_UNAVAILABLE",
        "The access token expired and there is no refresh token: sign in again",
      );
    let tokens: GrantedTokens;
    try {
      tokens = await client.refresh(refreshToken);
    } catch (error) {
      throw new AuthError(
        "OAUTH_TOKEN_UNAVAILABLE",
        "The provider refused to refresh the access token: sign in again",
        {
          cause: error,
        },
      );
    }
    const kept = {
      ...tokens,
      idToken: tokens.idToken ?? (await open("idToken")),
      scope: tokens.scope ?? account.scope,
    };
    const sealed = await this.tokens.sealedTokens(account.id, kept, account);
    await this.social.updateTokens(account.id, sealed);
    return {
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: tokens.expiresAt?.toISOString() ?? null,
      scopes: kept.scope ? kept.scope.split(" ") : [],
      idToken: kept.idToken,
    };
  }
}
