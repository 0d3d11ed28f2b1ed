import { randomId } from "../crypto/crypto.ts";
import { KeyEnvelope } from "../jwt/index.ts";
import type { AuthContext } from "../context/context.ts";
import type { AccountRecord } from "../ports/records.ts";
import type { GrantedTokens } from "./protocol-shapes.ts";
import type { OAuthProfile, OAuthProvider } from "./providers.ts";

/** The token columns of an account row, each sealed at rest. */
export type TokenField = "accessToken" | "refreshToken" | "idToken";

/** The provider tokens of linked accounts, sealed at rest (the row id and the column are the associated data). */
export class AccountTokenBox {
  private readonly tokenBox: KeyEnvelope;

  constructor(private readonly ctx: AuthContext) {
    const { secret } = ctx.config;
    this.tokenBox = new KeyEnvelope(secret, ctx.random, { salt: "latchkey/oauth-token", info: "aes-256-gcm v1" });
  }

  /** Seals a token for one column of one account row (the row id and the column are the associated data). */
  seal(accountId: string, field: TokenField, value: string | null): Promise<string | null> {
    return value === null ? Promise.resolve(null) : this.tokenBox.seal(`${accountId}:${field}`, value);
  }

  /**
   * The account's token columns after a grant, sealed. `stored`: the account as it is (null for a new one), whose
   * tokens stay where the grant brought none: a refresh without a new refresh token (a provider that does not rotate
   * them), and a native sign-in without an access token (the one a web sign-in stored stays usable).
   */
  async sealedTokens(accountId: string, tokens: GrantedTokens, stored: AccountRecord | null) {
    const at = new Date(this.ctx.clock.now());
    const keepAccess = tokens.accessToken === "" && stored !== null;
    return {
      accessToken: keepAccess
        ? stored.accessToken
        : await this.seal(accountId, "accessToken", tokens.accessToken === "" ? null : tokens.accessToken),
      refreshToken:
        tokens.refreshToken === null
          ? (stored?.refreshToken ?? null)
          : await this.seal(accountId, "refreshToken", tokens.refreshToken),
      idToken: await this.seal(accountId, "idToken", tokens.idToken),
      accessTokenExpiresAt: keepAccess ? stored.accessTokenExpiresAt : tokens.expiresAt,
      refreshTokenExpiresAt: null,
      scope: keepAccess ? stored.scope : tokens.scope,
      updatedAt: at,
    };
  }

  /** A new account row linking the provider identity to `userId`, its tokens sealed. */
  async newLinkedAccount(
    userId: string,
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
  ): Promise<AccountRecord> {
    const id = randomId(this.ctx.random);
    const at = new Date(this.ctx.clock.now());
    return {
      id,
      userId,
      providerId: provider.id,
      passwordHash: null,
      accountId: profile.id,
      ...(await this.sealedTokens(id, tokens, null)),
      createdAt: at,
      updatedAt: at,
    };
  }

  /** Opens one sealed token column of an account row; null when the column is empty. */
  open(account: AccountRecord, field: TokenField): Promise<string | null> {
    const sealed = account[field];
    return sealed === null ? Promise.resolve(null) : this.tokenBox.open(`${account.id}:${field}`, sealed);
  }
}
