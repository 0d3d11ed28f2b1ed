import * as oauth from "oauth4webapi";
import { AuthError, invalidField } from "../errors/errors.ts";
import { base64url, constantTimeEqual, hmacSha256With, randomId, utf8 } from "../crypto/crypto.ts";
import { KeyEnvelope } from "../jwt/index.ts";
import { inTransaction } from "../context/transaction.ts";
import { emit } from "../kernel/emit.ts";
import { normalizeEmail, resolveCallbackUrl, withQuery } from "../kernel/validation.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { newUser } from "../identity/accounts.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { AccountRecord, UserRecord } from "../ports/records.ts";
import type { SocialAccountStore } from "../ports/store.ts";
import { isChallenge, signInOrChallenge, type SignInAttempt, type SignInOutcome } from "../session/sign-in-gate.ts";
import type { ResolvedOAuthOptions } from "./options.ts";
import { ProtocolError, ProviderClient, type GrantedTokens } from "./protocol.ts";
import type { OAuthProfile, OAuthProvider } from "./providers.ts";

/** How long a started flow may take to come back (the state record's lifetime). */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The verification-row identifier prefix of a started flow (`oauth-state:<flow id>`). */
const STATE_PREFIX = "oauth-state:";

/**
 * @example
 * const input: StartSocialInput = { provider: "github", callbackURL: "/dashboard", errorCallbackURL: "/sign-in" };
 */
export interface StartSocialInput {
  provider: string;
  /** Where the browser goes once signed in: a path on `baseUrl` or a URL on a trusted origin. Default `baseUrl`. */
  callbackURL?: string | null;
  /** Where a failed or cancelled flow ends, with `?error=<code>`. Default: the plugin's `errorCallbackURL`. */
  errorCallbackURL?: string | null;
  /** Where a sign-in that created the user goes instead of `callbackURL`. */
  newUserCallbackURL?: string | null;
  /** Scopes to ask for besides the provider's. */
  scopes?: string[] | null;
}

/**
 * A native app's sign-in with the ID token its provider SDK gave it (Sign in with Apple, Google Sign-In).
 *
 * @example
 * const input: IdTokenSignInInput = { provider: "google", idToken: { token: credential, nonce: rawNonce } };
 */
export interface IdTokenSignInInput {
  provider: string;
  idToken: {
    /** The ID token (a JWT signed by the provider). */
    token: string;
    /** The nonce the app gave the provider's SDK: the token's `nonce` claim must be exactly this. */
    nonce: string;
    /** The access token the SDK gave with it, kept (sealed) for `POST /get-access-token`. */
    accessToken?: string | null;
  };
}

/** A started flow: the provider URL to send the browser to, and the state the browser's cookie binds. */
export interface SocialStart {
  url: string;
  /** Goes into the signed state cookie (`stateCookieValue`); never shown to anyone else. */
  state: string;
}

/**
 * A finished flow: where to send the browser, and the session (null when the flow linked an account), or the
 * second step a two-factor user's sign-in needs first (`twoFactor()`).
 */
export interface SocialCallback {
  redirect: string;
  signIn: SignInOutcome | null;
  newUser: boolean;
}

/**
 * A flow that ended in failure: the browser goes to `redirect` (the error callback with `?error=<code>`). `code`
 * is the error code; nothing of the provider's text is kept.
 */
export class OAuthCallbackError extends AuthError {
  constructor(
    code: ConstructorParameters<typeof AuthError>[0],
    message: string,
    readonly redirect: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** A linked account as the owner sees it (no tokens). */
export interface LinkedAccountView {
  id: string;
  providerId: string;
  /** The provider's subject; null for a password or an email-code account. */
  accountId: string | null;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

/** What `POST /get-access-token` answers. */
export interface ProviderAccessToken {
  accessToken: string;
  accessTokenExpiresAt: string | null;
  scopes: string[];
  idToken: string | null;
}

/** The sealed part of a started flow (its verification row's payload). */
interface FlowRecord {
  provider: string;
  verifier: string;
  nonce: string;
  callbackURL: string;
  errorCallbackURL: string;
  newUserCallbackURL: string | null;
  /** The user a `POST /link-social` flow links to; null for a sign-in. */
  linkUserId: string | null;
}

/** What a social sign-in tells the sign-in gate: the provider proved the first factor. */
function socialAttempt(provider: OAuthProvider): SignInAttempt {
  return { method: "social", rememberMe: true, providerId: provider.id };
}

/** Thrown inside a sign-in transaction when a racing request took the email or the identity first: start over. */
class RaceLost extends Error {}

const TOKEN_FIELDS = ["accessToken", "refreshToken", "idToken"] as const;

/**
 * Social sign-in and linked accounts: the OAuth 2.0 authorization code flow with PKCE (and OpenID Connect) for each
 * configured provider, accounts found by provider subject only, linking rules that cannot be hijacked, and the
 * provider tokens sealed at rest.
 *
 * @example
 * const { url, state } = await service.start({ provider: "github" }, meta, null);
 * const { redirect, signIn } = await service.callback("github", params, stateFromCookie, meta);
 */
export class OAuthService {
  private readonly clients = new Map<string, ProviderClient>();
  private readonly flowBox: KeyEnvelope;
  private readonly tokenBox: KeyEnvelope;
  private readonly stateMac: (text: string) => Uint8Array;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedOAuthOptions,
    private readonly social: SocialAccountStore,
  ) {
    for (const provider of options.providers.values())
      this.clients.set(provider.id, new ProviderClient(provider, ctx.clock));
    const { secret } = ctx.config;
    this.flowBox = new KeyEnvelope(secret, ctx.random, { salt: "latchkey/oauth-state", info: "aes-256-gcm v1" });
    this.tokenBox = new KeyEnvelope(secret, ctx.random, { salt: "latchkey/oauth-token", info: "aes-256-gcm v1" });
    // A key of its own for the state cookie's MAC, derived from the secret (never the secret itself).
    this.stateMac = hmacSha256With(utf8(`latchkey/oauth-state-cookie\u0000${secret}`));
  }

  /** The providers, in configuration order. */
  providers(): OAuthProvider[] {
    return [...this.options.providers.values()];
  }

  /** The callback the provider redirects to: `<baseUrl><basePath>/callback/<provider>` (register it with the provider). */
  redirectUri(providerId: string): string {
    const { config } = this.ctx;
    return `${config.baseUrl}${config.basePath}/callback/${providerId}`;
  }

  /** Where failures end when no flow (or no error callback) is known. */
  private defaultErrorTarget(): string {
    const { config } = this.ctx;
    return resolveCallbackUrl(config, this.options.errorCallbackURL, `${config.baseUrl}/`);
  }

  private client(providerId: unknown): ProviderClient {
    const client = typeof providerId === "string" ? this.clients.get(providerId) : undefined;
    if (!client) throw new AuthError("PROVIDER_NOT_FOUND", "No such sign-in provider");
    return client;
  }

  /** The cookie value that binds a flow to the browser that started it: `<state>.<HMAC>`. */
  stateCookieValue(state: string): string {
    return `${state}.${base64url(this.stateMac(`${STATE_PREFIX}${state}`))}`;
  }

  /** The state a cookie carries when its MAC is right; null otherwise. */
  private stateOfCookie(cookie: string | null): string | null {
    if (!cookie) return null;
    const dot = cookie.lastIndexOf(".");
    if (dot <= 0) return null;
    const state = cookie.slice(0, dot);
    return constantTimeEqual(cookie, this.stateCookieValue(state)) ? state : null;
  }

  /**
   * Starts a flow: checks the callback URLs (400 `INVALID_CALLBACK_URL`), stores the single-use state record (PKCE
   * verifier, nonce, callbacks, sealed; 10 minutes) and answers the provider's authorization URL. `linkUserId`: a
   * `POST /link-social` flow of that signed-in user.
   */
  async start(input: StartSocialInput, _meta: RequestMeta, linkUserId: string | null): Promise<SocialStart> {
    const { ctx } = this;
    const client = this.client(input?.provider);
    const { config } = ctx;
    const text = (value: unknown, field: string) => {
      if (value !== null && value !== undefined && typeof value !== "string")
        throw invalidField(field, `${field} must be a string`);
      return value as string | null | undefined;
    };
    const callbackURL = resolveCallbackUrl(config, text(input.callbackURL, "callbackURL"), `${config.baseUrl}/`);
    const errorCallbackURL = resolveCallbackUrl(
      config,
      text(input.errorCallbackURL, "errorCallbackURL"),
      this.defaultErrorTarget(),
    );
    const newUser = text(input.newUserCallbackURL, "newUserCallbackURL");
    const newUserCallbackURL = newUser ? resolveCallbackUrl(config, newUser, callbackURL) : null;
    const extra = input.scopes ?? [];
    if (
      !Array.isArray(extra) ||
      extra.some((s) => typeof s !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/.test(s))
    )
      throw invalidField("scopes", "scopes must be an array of scope tokens");
    const scopes = [...new Set([...client.provider.scopes, ...extra])];
    const flow: FlowRecord = {
      provider: client.provider.id,
      verifier: oauth.generateRandomCodeVerifier(),
      nonce: oauth.generateRandomNonce(),
      callbackURL,
      errorCallbackURL,
      newUserCallbackURL,
      linkUserId,
    };
    const identifier = `${STATE_PREFIX}${randomId(ctx.random)}`;
    const sealed = await this.flowBox.seal(identifier, JSON.stringify(flow));
    const state = await ctx.secrets.issueToken(identifier, linkUserId, OAUTH_STATE_TTL_MS, sealed);
    const url = await this.startUrl(client, flow, state, scopes);
    return { url, state };
  }

  private async startUrl(client: ProviderClient, flow: FlowRecord, state: string, scopes: string[]): Promise<string> {
    try {
      return await client.authorizationUrl({
        state,
        nonce: flow.nonce,
        verifier: flow.verifier,
        redirectUri: this.redirectUri(flow.provider),
        scopes,
      });
    } catch (error) {
      throw new AuthError("OAUTH_PROVIDER_ERROR", "The provider cannot be reached", { cause: error });
    }
  }

  /**
   * Finishes a flow from the provider's response (`params`: the callback's query or form body) and the browser's
   * state cookie. The state must be the browser's own, known, unexpired and unspent: it is spent here, once. Every
   * failure throws `OAuthCallbackError` whose `redirect` is the flow's error callback with `?error=<code>`.
   */
  async callback(
    providerId: string,
    params: URLSearchParams,
    stateCookie: string | null,
    meta: RequestMeta,
  ): Promise<SocialCallback> {
    const fallback = this.defaultErrorTarget();
    const fail = (target: string, code: ConstructorParameters<typeof AuthError>[0], message: string, cause?: unknown) =>
      new OAuthCallbackError(code, message, withQuery(target, { error: code }), { cause });
    const client = this.clients.get(providerId);
    if (!client) throw fail(fallback, "PROVIDER_NOT_FOUND", "No such sign-in provider");
    const state = params.get("state");
    // Bound to the browser: the signed cookie of the flow this browser started must name the same state.
    const bound = this.stateOfCookie(stateCookie);
    if (!state || !bound || !constantTimeEqual(state, bound))
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in did not start in this browser, or it expired");
    let row: Awaited<ReturnType<AuthContext["secrets"]["findToken"]>>;
    try {
      row = await this.ctx.secrets.findToken(state, STATE_PREFIX);
    } catch {
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in is unknown, spent or expired");
    }
    // Spent before anything else: of two callbacks with the same state exactly one goes on.
    if (!(await this.ctx.store.verifications.consume(row.id)))
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in was already used");
    let flow: FlowRecord;
    try {
      flow = JSON.parse(await this.flowBox.open(row.identifier, row.payload ?? "")) as FlowRecord;
    } catch (error) {
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in's record cannot be read", error);
    }
    const errorTarget = flow.errorCallbackURL;
    if (flow.provider !== providerId)
      throw fail(errorTarget, "OAUTH_STATE_MISMATCH", "The sign-in was started for another provider");
    let tokens: GrantedTokens;
    let profile: OAuthProfile;
    try {
      tokens = await client.redeem(params, {
        state,
        nonce: flow.nonce,
        verifier: flow.verifier,
        redirectUri: this.redirectUri(providerId),
      });
      profile = await client.profile(tokens);
    } catch (error) {
      if (error instanceof ProtocolError) throw fail(errorTarget, error.code, error.message, error);
      throw fail(errorTarget, "OAUTH_PROVIDER_ERROR", "The provider could not be reached", error);
    }
    try {
      if (flow.linkUserId !== null) {
        await this.linkTo(flow.linkUserId, client.provider, profile, tokens, meta);
        return { redirect: flow.callbackURL, signIn: null, newUser: false };
      }
      const { signIn, newUser } = await this.signInWith(client.provider, profile, tokens, meta);
      const target = newUser ? (flow.newUserCallbackURL ?? flow.callbackURL) : flow.callbackURL;
      // A two-factor user: the app's page finishes the sign-in with `POST /two-factor/verify` (pending cookie set).
      const redirect = isChallenge(signIn) ? withQuery(target, { twoFactorRequired: "true" }) : target;
      return { redirect, signIn, newUser };
    } catch (error) {
      if (error instanceof AuthError) throw fail(errorTarget, error.code, error.message, error);
      throw error;
    }
  }

  /**
   * Signs in with a native app's ID token: verified against the provider's JWKS (issuer, audience `clientId` or a
   * `nativeClientIds` entry, expiry, issued-at, an asymmetric algorithm) with the app's nonce, then the same account
   * rules as the code flow. OpenID Connect providers only. Failures are AuthErrors with the flow's codes
   * (`OAUTH_INVALID_RESPONSE` for a token that fails a check, `OAUTH_PROVIDER_ERROR` when the JWKS cannot be read).
   */
  async signInWithIdToken(
    input: IdTokenSignInInput,
    meta: RequestMeta,
  ): Promise<{ signIn: SignInOutcome; newUser: boolean }> {
    const client = this.client(input?.provider);
    const { token, nonce, accessToken } = input.idToken ?? {};
    if (typeof token !== "string" || token === "") throw invalidField("idToken.token", "idToken.token is required");
    if (typeof nonce !== "string" || nonce === "")
      throw invalidField("idToken.nonce", "idToken.nonce is required: the nonce the app gave the provider");
    let tokens: GrantedTokens;
    let profile: OAuthProfile;
    try {
      tokens = await client.nativeSignIn(token, nonce, typeof accessToken === "string" ? accessToken : null);
      profile = await client.profile(tokens);
    } catch (error) {
      if (error instanceof ProtocolError) throw new AuthError(error.code, error.message, { cause: error });
      throw new AuthError("OAUTH_PROVIDER_ERROR", "The provider could not be reached", { cause: error });
    }
    return this.signInWith(client.provider, profile, tokens, meta);
  }

  /** Seals a token for one column of one account row (the row id and the column are the associated data). */
  private seal(accountId: string, field: (typeof TOKEN_FIELDS)[number], value: string | null): Promise<string | null> {
    return value === null ? Promise.resolve(null) : this.tokenBox.seal(`${accountId}:${field}`, value);
  }

  /**
   * The account's token columns after a grant, sealed. `stored`: the account as it is (null for a new one), whose
   * tokens stay where the grant brought none: a refresh without a new refresh token (a provider that does not rotate
   * them), and a native sign-in without an access token (the one a web sign-in stored stays usable).
   */
  private async sealedTokens(accountId: string, tokens: GrantedTokens, stored: AccountRecord | null) {
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

  private async newLinkedAccount(
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

  /**
   * Signs in with a provider identity. Found by (provider, subject): that user. Otherwise by email only when the
   * provider asserts the email verified and is trusted (`accountLinking.trustedProviders`), after the pre-hijack
   * clean-up of an unverified user; any other match is 409 `ACCOUNT_EXISTS`. Otherwise a new user, verified only
   * when the provider says the email is.
   */
  async signInWith(
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<{ signIn: SignInOutcome; newUser: boolean }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.signInOnce(provider, profile, tokens, meta);
      } catch (error) {
        // A racing sign-in or sign-up took the identity or the email first: the next pass finds what it made.
        if (error instanceof RaceLost && attempt < 2) continue;
        if (error instanceof RaceLost) throw new AuthError("INTERNAL_ERROR", "The sign-in kept racing another request");
        throw error;
      }
    }
  }

  private checkVerifiedForSignIn(user: Pick<UserRecord, "emailVerified">): void {
    if (this.ctx.config.emailVerification.requireVerifiedForSignIn && !user.emailVerified)
      throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before signing in");
  }

  private async signInOnce(
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<{ signIn: SignInOutcome; newUser: boolean }> {
    const { ctx } = this;
    const found = await this.social.findByProviderAccount(provider.id, profile.id);
    if (found) {
      this.checkVerifiedForSignIn(found.user);
      await ctx.hooks.beforeSignIn(found.user, "sign-in-social", meta);
      const sealed = await this.sealedTokens(found.account.id, tokens, found.account);
      await this.social.updateTokens(found.account.id, sealed);
      const signIn = await signInOrChallenge(ctx, found.user, meta, socialAttempt(provider));
      await this.signedIn(signIn, found.user.id, provider.id, meta);
      return { signIn, newUser: false };
    }
    if (profile.email === null)
      throw new AuthError("OAUTH_EMAIL_MISSING", "The provider did not share an email address");
    const email = normalizeEmail(profile.email);
    const existing = await ctx.store.users.findByEmail(email);
    if (existing) return { signIn: await this.linkByEmail(existing, provider, profile, tokens, meta), newUser: false };
    if (!this.options.allowSignUp)
      throw new AuthError("OAUTH_SIGN_UP_DISABLED", "There is no account for this sign-in, and sign-up is off");
    this.checkVerifiedForSignIn(profile);
    const draft = newUser(ctx, email, {
      emailVerified: profile.emailVerified,
      name: profile.name,
      image: profile.image,
    });
    const user = await ctx.hooks.beforeUserCreated(draft, "sign-in-social", meta);
    await ctx.hooks.beforeSignIn(user, "sign-in-social", meta);
    const account = await this.newLinkedAccount(user.id, provider, profile, tokens);
    const signIn = await inTransaction(ctx, async (tx) => {
      const created = await tx.store.users.create(user, [account]).catch((error: unknown) => {
        // The identity's unique index: a parallel callback of the same person created it first.
        throw new RaceLost("identity taken", { cause: error });
      });
      if (!created.ok) throw new RaceLost(`${created.conflict} taken`);
      await emit(tx, "UserSignedUp", { userId: user.id, email: user.email }, meta, user.createdAt);
      await emit(tx, "AccountLinked", { userId: user.id, providerId: provider.id }, meta, user.createdAt);
      return signInOrChallenge(tx, created.value, meta, socialAttempt(provider));
    });
    await this.signedIn(signIn, user.id, provider.id, meta);
    return { signIn, newUser: true };
  }

  /** A first sign-in whose email is an existing user's: linked only for a verified email of a trusted provider. */
  private async linkByEmail(
    existing: UserRecord,
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<SignInOutcome> {
    const { ctx } = this;
    if (!profile.emailVerified || !this.options.trustedProviders.has(provider.id))
      throw new AuthError(
        "ACCOUNT_EXISTS",
        "An account with this email exists: sign in to it, then connect this provider from your account settings",
      );
    // The provider proved the mailbox: the user counts as verified from here on.
    this.checkVerifiedForSignIn({ emailVerified: true });
    await ctx.hooks.beforeSignIn(existing, "sign-in-social", meta);
    const account = await this.newLinkedAccount(existing.id, provider, profile, tokens);
    const signIn = await inTransaction(ctx, async (tx) => {
      // An unverified user loses what was set up before this proof (a password an attacker registered first).
      const user = await proveMailbox(tx, existing, null, meta);
      const linked = await this.socialIn(tx).link(account);
      if (linked !== "linked") throw new RaceLost(`link ${linked}`);
      await emit(tx, "AccountLinked", { userId: user.id, providerId: provider.id }, meta);
      return signInOrChallenge(tx, user, meta, socialAttempt(provider));
    });
    await this.signedIn(signIn, existing.id, provider.id, meta);
    return signIn;
  }

  /** The transaction's social-account port (the plugin requires it, so every store that installs it has one). */
  private socialIn(tx: AuthContext): SocialAccountStore {
    return tx.store.socialAccounts ?? this.social;
  }

  /** `UserSignedIn` for a sign-in that got its session (a second step emits it once it is finished). */
  private async signedIn(outcome: SignInOutcome, userId: string, providerId: string, meta: RequestMeta): Promise<void> {
    if (isChallenge(outcome)) return;
    await emit(this.ctx, "UserSignedIn", { userId, method: "social", providerId }, meta);
  }

  /** Links the identity to the signed-in user who started `POST /link-social` (409 when it is someone else's). */
  private async linkTo(
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
        await this.sealedTokens(found.account.id, tokens, found.account),
      );
      return;
    }
    const linked = await this.social.link(await this.newLinkedAccount(userId, provider, profile, tokens));
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
    const open = (field: (typeof TOKEN_FIELDS)[number]) => {
      const sealed = account[field];
      return sealed === null ? Promise.resolve(null) : this.tokenBox.open(`${account.id}:${field}`, sealed);
    };
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
    const sealed = await this.sealedTokens(account.id, kept, account);
    await this.social.updateTokens(account.id, sealed);
    return {
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: tokens.expiresAt?.toISOString() ?? null,
      scopes: kept.scope ? kept.scope.split(" ") : [],
      idToken: kept.idToken,
    };
  }
}
