import * as oauth from "oauth4webapi";
import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import type { Clock } from "../ports/clock.ts";
import { CLOCK_TOLERANCE_S, verifyIdToken } from "./id-token.ts";
import { ProtocolError, type GrantedTokens } from "./protocol-shapes.ts";
import { isLoopback, type OAuthProfile, type OAuthProvider } from "./providers.ts";
import { userApiProfile } from "./user-api.ts";

function insecureOk(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === "http:" && isLoopback(parsed);
}

/**
 * One provider's protocol steps over oauth4webapi, with ID-token signatures checked by jose against the issuer's
 * JWKS. Discovery runs once per instance (a failure is retried on the next use); the JWKS set refetches on an
 * unknown key id (rotation), with jose's cooldown.
 */
export class ProviderClient {
  private server: Promise<oauth.AuthorizationServer> | null = null;
  private jwks: JWTVerifyGetKey | null = null;
  private readonly insecure: boolean;

  constructor(
    readonly provider: OAuthProvider,
    private readonly clock: Clock,
  ) {
    this.insecure =
      provider.kind === "oidc"
        ? insecureOk(provider.issuer)
        : [provider.authorizationUrl, provider.tokenUrl, provider.userInfoUrl].some(insecureOk);
  }

  private options<T extends object>(extra: T): T {
    return { ...extra, [oauth.allowInsecureRequests]: this.insecure, signal: AbortSignal.timeout(10_000) };
  }

  /** The authorization server's metadata: discovered (OpenID Connect, cached) or built from the given endpoints. */
  authorizationServer(): Promise<oauth.AuthorizationServer> {
    const { provider } = this;
    if (provider.kind === "oauth2") {
      this.server ??= Promise.resolve({
        issuer: provider.issuer ?? new URL(provider.authorizationUrl).origin,
        authorization_endpoint: provider.authorizationUrl,
        token_endpoint: provider.tokenUrl,
        userinfo_endpoint: provider.userInfoUrl,
      });
      return this.server;
    }
    if (!this.server) {
      const issuer = new URL(provider.issuer);
      const pending = (async () => {
        try {
          const response = await oauth.discoveryRequest(issuer, this.options({ algorithm: "oidc" as const }));
          return await oauth.processDiscoveryResponse(issuer, response);
        } catch (error) {
          throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider's discovery document could not be read", {
            cause: error,
          });
        }
      })();
      // A failed discovery is not cached: the next sign-in tries again.
      pending.catch(() => {
        if (this.server === pending) this.server = null;
      });
      this.server = pending;
    }
    return this.server;
  }

  private client(): oauth.Client {
    // oauth4webapi reads the current time as Date.now() plus this skew: the same clock as the rest of Latchkey.
    return {
      client_id: this.provider.clientId,
      [oauth.clockSkew]: Math.round((this.clock.now() - Date.now()) / 1000),
      [oauth.clockTolerance]: CLOCK_TOLERANCE_S,
    };
  }

  private clientAuth(server: oauth.AuthorizationServer): oauth.ClientAuth {
    const methods = server.token_endpoint_auth_methods_supported;
    return methods && !methods.includes("client_secret_post") && methods.includes("client_secret_basic")
      ? oauth.ClientSecretBasic(this.provider.clientSecret)
      : oauth.ClientSecretPost(this.provider.clientSecret);
  }

  /** The provider's authorization URL for this flow: code flow, PKCE S256, state, nonce (OpenID Connect). */
  async authorizationUrl(flow: {
    state: string;
    nonce: string;
    verifier: string;
    redirectUri: string;
    scopes: string[];
  }) {
    const server = await this.authorizationServer();
    if (!server.authorization_endpoint)
      throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider has no authorization endpoint");
    const url = new URL(server.authorization_endpoint);
    const params: Record<string, string> = {
      response_type: "code",
      client_id: this.provider.clientId,
      redirect_uri: flow.redirectUri,
      scope: flow.scopes.join(" "),
      state: flow.state,
      code_challenge: await oauth.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: "S256",
    };
    if (this.provider.kind === "oidc") params.nonce = flow.nonce;
    if (this.provider.responseMode === "form_post") params.response_mode = "form_post";
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.toString();
  }

  /**
   * Checks the authorization response (state, RFC 9207 `iss`, `error`), redeems the code with the PKCE verifier and
   * verifies the ID token (signature against the JWKS, issuer, audience, expiry, issued-at, nonce).
   */
  async redeem(
    params: URLSearchParams,
    flow: { state: string; nonce: string; verifier: string; redirectUri: string },
  ): Promise<GrantedTokens> {
    const server = await this.authorizationServer();
    const client = this.client();
    let callback: URLSearchParams;
    try {
      callback = oauth.validateAuthResponse(server, client, params, flow.state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError)
        throw new ProtocolError(
          error.error === "access_denied" ? "OAUTH_ACCESS_DENIED" : "OAUTH_PROVIDER_ERROR",
          "The provider refused the authorization",
        );
      throw new ProtocolError("OAUTH_INVALID_RESPONSE", "The authorization response is not valid", { cause: error });
    }
    const oidc = this.provider.kind === "oidc";
    let result: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        client,
        this.clientAuth(server),
        callback,
        flow.redirectUri,
        flow.verifier,
        this.options({}),
      );
      result = await oauth.processAuthorizationCodeResponse(server, client, response, {
        ...(oidc ? { expectedNonce: flow.nonce, requireIdToken: true } : {}),
      });
    } catch (error) {
      throw new ProtocolError("OAUTH_INVALID_RESPONSE", "The provider's token response is not valid", { cause: error });
    }
    const claims =
      oidc && result.id_token
        ? await this.verifyIdToken(server, result.id_token, flow.nonce, [this.provider.clientId])
        : null;
    return this.granted(result, claims);
  }

  /** Exchanges a refresh token; the new tokens (a provider that does not rotate keeps the old refresh token). */
  async refresh(refreshToken: string): Promise<GrantedTokens> {
    const server = await this.authorizationServer();
    const client = this.client();
    try {
      const response = await oauth.refreshTokenGrantRequest(
        server,
        client,
        this.clientAuth(server),
        refreshToken,
        this.options({}),
      );
      const result = await oauth.processRefreshTokenResponse(server, client, response);
      return this.granted(result, null);
    } catch (error) {
      throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider refused to refresh the access token", {
        cause: error,
      });
    }
  }

  private granted(result: oauth.TokenEndpointResponse, claims: Record<string, unknown> | null): GrantedTokens {
    const now = this.clock.now();
    return {
      accessToken: result.access_token,
      refreshToken: result.refresh_token ?? null,
      idToken: result.id_token ?? null,
      expiresAt: typeof result.expires_in === "number" ? new Date(now + result.expires_in * 1000) : null,
      scope: typeof result.scope === "string" ? result.scope : null,
      claims,
    };
  }

  /**
   * A native app's ID token (`POST /sign-in/social` `{ provider, idToken }`): the same checks as the code flow's
   * (signature against the issuer's JWKS, an asymmetric algorithm, issuer, expiry, issued-at, nonce), with the
   * audience `clientId` or one of the provider's `nativeClientIds`. OpenID Connect providers only.
   */
  async nativeSignIn(idToken: string, nonce: string, accessToken: string | null): Promise<GrantedTokens> {
    const { provider } = this;
    if (provider.kind !== "oidc")
      throw new ProtocolError("OAUTH_INVALID_RESPONSE", "This provider does not sign in with an ID token");
    const server = await this.authorizationServer();
    const claims = await this.verifyIdToken(server, idToken, nonce, [provider.clientId, ...provider.nativeClientIds]);
    return { accessToken: accessToken ?? "", refreshToken: null, idToken, expiresAt: null, scope: null, claims };
  }

  private async verifyIdToken(
    server: oauth.AuthorizationServer,
    idToken: string,
    nonce: string,
    audiences: string[],
  ): Promise<Record<string, unknown>> {
    if (!server.jwks_uri) throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider publishes no JWKS");
    this.jwks ??= createRemoteJWKSet(new URL(server.jwks_uri), { timeoutDuration: 10_000 });
    return verifyIdToken(this.jwks, server, idToken, nonce, audiences, this.clock.now());
  }

  /**
   * The claims of the provider's UserInfo endpoint, for an ID token without an email: OpenID Connect Core 5.4 lets a
   * provider return scope-requested claims (`email`, `email_verified`) only there, as oidc-provider does by default.
   * Its `sub` must equal the ID token's (Core 5.3.4). Null without an endpoint or an access token (a native sign-in).
   */
  private async userInfoClaims(accessToken: string, subject: string): Promise<Record<string, unknown> | null> {
    const server = await this.authorizationServer();
    if (!server.userinfo_endpoint || accessToken === "") return null;
    const client = this.client();
    try {
      const response = await oauth.userInfoRequest(server, client, accessToken, this.options({}));
      return await oauth.processUserInfoResponse(server, client, subject, response);
    } catch (error) {
      const invalid = error instanceof oauth.OperationProcessingError;
      throw new ProtocolError(
        invalid ? "OAUTH_INVALID_RESPONSE" : "OAUTH_PROVIDER_ERROR",
        invalid ? "The provider's UserInfo answer is not valid" : "The provider's UserInfo endpoint could not be read",
        { cause: error },
      );
    }
  }

  /** The person signing in: from the ID token's claims (OpenID Connect) or the user API (`mapProfile`). */
  async profile(tokens: GrantedTokens): Promise<OAuthProfile> {
    const { provider } = this;
    if (provider.kind === "oidc") {
      const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
      let claims = tokens.claims ?? {};
      if (text(claims.email) === null) {
        // The ID token's own claims win; the email and its verified flag come together from one source.
        const extra = await this.userInfoClaims(tokens.accessToken, String(claims.sub));
        if (extra) claims = { ...extra, ...claims, email: extra.email, email_verified: extra.email_verified };
      }
      return {
        id: String(claims.sub),
        email: text(claims.email),
        emailVerified: provider.emailVerified(claims),
        name: text(claims.name),
        image: text(claims.picture),
      };
    }
    return userApiProfile(provider, tokens);
  }
}
