import * as oauth from "oauth4webapi";
import { AuthError, invalidField } from "../errors/errors.ts";
import { constantTimeEqual } from "../crypto/crypto.ts";
import { resolveCallbackUrl, withQuery } from "../kernel/validation.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { isChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import { FlowStates, type FlowRecord, type FlowRow } from "./flow-state.ts";
import type { ResolvedOAuthOptions } from "./options.ts";
import { ProtocolError, type GrantedTokens } from "./protocol-shapes.ts";
import type { ProviderClient } from "./protocol.ts";
import type { OAuthProfile, OAuthProvider } from "./providers.ts";
import {
  OAuthCallbackError,
  type IdTokenSignInInput,
  type SocialCallback,
  type SocialStart,
  type StartSocialInput,
} from "./social-shapes.ts";

/** What becomes of the provider identity a flow brings back: a sign-in, or a link to the user who started it. */
export interface IdentityLanding {
  signInWith(
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<{ signIn: SignInOutcome; newUser: boolean }>;
  linkTo(
    userId: string,
    provider: OAuthProvider,
    profile: OAuthProfile,
    tokens: GrantedTokens,
    meta: RequestMeta,
  ): Promise<void>;
}

/**
 * The ways a provider identity arrives: the authorization code flow with PKCE (started, then finished on the
 * callback with the browser's state cookie), and a native app's ID token.
 */
export class SocialFlow {
  readonly states: FlowStates;

  constructor(
    private readonly ctx: AuthContext,
    private readonly options: ResolvedOAuthOptions,
    private readonly clients: ReadonlyMap<string, ProviderClient>,
    private readonly identity: IdentityLanding,
  ) {
    this.states = new FlowStates(ctx);
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

  /** The provider's client; 400 `PROVIDER_NOT_FOUND` for an unknown provider. */
  client(providerId: unknown): ProviderClient {
    const client = typeof providerId === "string" ? this.clients.get(providerId) : undefined;
    if (!client) throw new AuthError("PROVIDER_NOT_FOUND", "No such sign-in provider");
    return client;
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
    const state = await this.states.issue(flow, linkUserId);
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
    const bound = this.states.stateOfCookie(stateCookie);
    if (!state || !bound || !constantTimeEqual(state, bound))
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in did not start in this browser, or it expired");
    let row: FlowRow;
    try {
      row = await this.states.find(state);
    } catch {
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in is unknown, spent or expired");
    }
    // Spent before anything else: of two callbacks with the same state exactly one goes on.
    if (!(await this.ctx.store.verifications.consume(row.id)))
      throw fail(fallback, "OAUTH_STATE_MISMATCH", "The sign-in was already used");
    let flow: FlowRecord;
    try {
      flow = await this.states.open(row);
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
        await this.identity.linkTo(flow.linkUserId, client.provider, profile, tokens, meta);
        return { redirect: flow.callbackURL, signIn: null, newUser: false };
      }
      const { signIn, newUser } = await this.identity.signInWith(client.provider, profile, tokens, meta);
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
    return this.identity.signInWith(client.provider, profile, tokens, meta);
  }
}
