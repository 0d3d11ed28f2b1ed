import { AuthError } from "../errors/errors.ts";
import { inTransaction } from "../context/transaction.ts";
import { emit } from "../kernel/emit.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { newUser } from "../identity/accounts.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { SocialAccountStore } from "../ports/store.ts";
import { isChallenge, signInOrChallenge, type SignInAttempt, type SignInOutcome } from "../session/sign-in-gate.ts";
import { AccountTokenBox } from "./account-tokens.ts";
import { LinkedAccounts } from "./linked-accounts.ts";
import type { ResolvedOAuthOptions } from "./options.ts";
import { ProviderClient } from "./protocol.ts";
import type { GrantedTokens } from "./protocol-shapes.ts";
import type { OAuthProfile, OAuthProvider } from "./providers.ts";
import { SocialFlow } from "./social-flow.ts";
import type {
  IdTokenSignInInput,
  LinkedAccountView,
  ProviderAccessToken,
  SocialCallback,
  SocialStart,
  StartSocialInput,
} from "./social-shapes.ts";

/** What a social sign-in tells the sign-in gate: the provider proved the first factor. */
function socialAttempt(provider: OAuthProvider): SignInAttempt {
  return { method: "social", rememberMe: true, providerId: provider.id };
}

/** Thrown inside a sign-in transaction when a racing request took the email or the identity first: start over. */
class RaceLost extends Error {}

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
  private readonly flow: SocialFlow;
  private readonly tokens: AccountTokenBox;
  private readonly accounts: LinkedAccounts;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedOAuthOptions,
    private readonly social: SocialAccountStore,
  ) {
    const clients = new Map<string, ProviderClient>();
    for (const provider of options.providers.values())
      clients.set(provider.id, new ProviderClient(provider, ctx.clock));
    this.tokens = new AccountTokenBox(ctx);
    this.accounts = new LinkedAccounts(ctx, social, this.tokens, (providerId) => this.flow.client(providerId));
    this.flow = new SocialFlow(ctx, options, clients, {
      signInWith: (provider, profile, tokens, meta) => this.signInWith(provider, profile, tokens, meta),
      linkTo: (userId, provider, profile, tokens, meta) =>
        this.accounts.linkTo(userId, provider, profile, tokens, meta),
    });
  }

  /** The providers, in configuration order. */
  providers(): OAuthProvider[] {
    return [...this.options.providers.values()];
  }

  /** The callback the provider redirects to: `<baseUrl><basePath>/callback/<provider>` (register it with the provider). */
  redirectUri(providerId: string): string {
    return this.flow.redirectUri(providerId);
  }

  /** The cookie value that binds a flow to the browser that started it: `<state>.<HMAC>`. */
  stateCookieValue(state: string): string {
    return this.flow.states.cookieValue(state);
  }

  /**
   * Starts a flow: checks the callback URLs (400 `INVALID_CALLBACK_URL`), stores the single-use state record (PKCE
   * verifier, nonce, callbacks, sealed; 10 minutes) and answers the provider's authorization URL. `linkUserId`: a
   * `POST /link-social` flow of that signed-in user.
   */
  async start(input: StartSocialInput, _meta: RequestMeta, linkUserId: string | null): Promise<SocialStart> {
    return this.flow.start(input, _meta, linkUserId);
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
    return this.flow.callback(providerId, params, stateCookie, meta);
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
    return this.flow.signInWithIdToken(input, meta);
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
      const sealed = await this.tokens.sealedTokens(found.account.id, tokens, found.account);
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
    const account = await this.tokens.newLinkedAccount(user.id, provider, profile, tokens);
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
    const account = await this.tokens.newLinkedAccount(existing.id, provider, profile, tokens);
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

  /** The user's accounts (passwords and email codes included), without tokens. */
  async listAccounts(userId: string): Promise<LinkedAccountView[]> {
    return this.accounts.listAccounts(userId);
  }

  /** Unlinks a provider identity; 409 `LAST_ACCOUNT` when it is the user's last way to sign in. */
  async unlink(
    userId: string,
    input: { providerId: string; accountId?: string | null },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    return this.accounts.unlink(userId, input, meta);
  }

  /**
   * A valid provider access token of the user's linked account: the stored one, or (when it has expired) a new
   * one from the stored refresh token, sealed and stored again.
   */
  async accessToken(
    userId: string,
    input: { providerId: string; accountId?: string | null },
  ): Promise<ProviderAccessToken> {
    return this.accounts.accessToken(userId, input);
  }
}
