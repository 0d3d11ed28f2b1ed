import { AuthConfigError } from "../errors/errors.ts";

/** What a provider tells about the person signing in, read from its ID token or its user API. */
export interface OAuthProfile {
  /** The provider's stable subject (OpenID Connect `sub`, GitHub's numeric id): what the account is found by. */
  id: string;
  /** The email the provider gives, lower-cased by Latchkey; null when it gives none. */
  email: string | null;
  /** True only when the provider asserts it verified `email` (never assumed). */
  emailVerified: boolean;
  name: string | null;
  image: string | null;
}

/** What an `oauth2()` provider's `mapProfile` can use besides the user API's answer. */
export interface ProfileContext {
  /** The provider access token of this sign-in. */
  accessToken: string;
  /** GETs a JSON document of the provider's API with the access token (e.g. GitHub's `/user/emails`). */
  fetchJson(url: string): Promise<unknown>;
}

interface ProviderBase {
  /** The provider's id in routes (`/callback/:id`) and stored accounts (`providerId`): lower-case letters, digits, `-`. */
  id: string;
  /** Shown to people ("Sign in with ..."). */
  name: string;
  clientId: string;
  clientSecret: string;
  /** Scopes asked for by default (`POST /sign-in/social` may add more). */
  scopes: string[];
  /** `form_post`: the provider POSTs the response to the callback (Apple, when it is asked for name or email). */
  responseMode: "query" | "form_post";
}

/**
 * An OpenID Connect provider, configured by discovery (`<issuer>/.well-known/openid-configuration`, fetched once
 * and cached). The profile comes from the verified ID token.
 */
export interface OidcProvider extends ProviderBase {
  kind: "oidc";
  issuer: string;
  /** Reads whether the ID token's email is verified (default: the `email_verified` claim is `true` or `"true"`). */
  emailVerified: (claims: Record<string, unknown>) => boolean;
  /**
   * Client ids of native apps whose ID tokens `POST /sign-in/social` `{ provider, idToken }` also accepts (an iOS
   * app's bundle id for Apple, an iOS client id for Google): the token's audience must be `clientId` or one of these.
   */
  nativeClientIds: string[];
}

/** A plain OAuth 2.0 provider (no OpenID Connect): endpoints given, the profile read from its user API. */
export interface OAuth2Provider extends ProviderBase {
  kind: "oauth2";
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  /** The `iss` the provider sends in its authorization responses (RFC 9207), when it sends one. */
  issuer: string | null;
  mapProfile: (profile: Record<string, unknown>, context: ProfileContext) => OAuthProfile | Promise<OAuthProfile>;
}

/** A provider of `oauth({ providers })`: what `oidc()`, `oauth2()` and the presets return. */
export type OAuthProvider = OidcProvider | OAuth2Provider;

/** The client credentials every provider needs. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for besides the preset's. */
  scopes?: string[];
  /** OpenID Connect presets: native apps' client ids whose ID tokens sign in too (see `OidcProvider.nativeClientIds`). */
  nativeClientIds?: string[];
}

const ID_SHAPE = /^[a-z0-9][a-z0-9-]{0,31}$/;

function checkUrl(value: unknown, field: string): string {
  if (typeof value !== "string") throw new AuthConfigError(field, "must be an absolute https URL");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthConfigError(field, "must be an absolute https URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url)))
    throw new AuthConfigError(field, "must be an https URL (plain http only on localhost)");
  return value.replace(/\/$/, "");
}

/** `localhost`, `127.0.0.1` or `[::1]`: where plain `http:` endpoints are allowed (development, tests). */
export function isLoopback(url: URL): boolean {
  return url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
}

function checkBase(
  input: { id?: unknown; clientId?: unknown; clientSecret?: unknown; scopes?: unknown },
  field: string,
) {
  if (typeof input.id !== "string" || !ID_SHAPE.test(input.id))
    throw new AuthConfigError(`${field}.id`, "must be 1-32 lower-case letters, digits or '-'");
  if (typeof input.clientId !== "string" || input.clientId === "")
    throw new AuthConfigError(`${field}.clientId`, "must be a non-empty string");
  if (typeof input.clientSecret !== "string" || input.clientSecret === "")
    throw new AuthConfigError(`${field}.clientSecret`, "must be a non-empty string");
  if (
    input.scopes !== undefined &&
    (!Array.isArray(input.scopes) ||
      input.scopes.some((s) => typeof s !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))
  )
    throw new AuthConfigError(`${field}.scopes`, "must be an array of scope tokens");
}

function checkClientIds(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((id) => typeof id !== "string" || id === "" || id.length > 255))
    throw new AuthConfigError(field, "must be an array of non-empty client ids");
  return [...new Set(value as string[])];
}

const merged = (base: string[], extra: string[] | undefined) => [...new Set([...base, ...(extra ?? [])])];

/** `email_verified` as OpenID Connect defines it; some providers (Apple) send the string `"true"`. */
const emailVerifiedClaim = (claims: Record<string, unknown>): boolean =>
  claims.email_verified === true || claims.email_verified === "true";

/**
 * Any OpenID Connect provider by its issuer: endpoints and keys come from discovery, cached per instance.
 *
 * @example
 * oidc({ id: "example-id", issuer: "https://id.example.com", clientId, clientSecret, scopes: ["openid", "email"] });
 */
export function oidc(options: {
  id: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
  name?: string;
  responseMode?: "query" | "form_post";
  nativeClientIds?: string[];
}): OidcProvider {
  const field = `oidc(${typeof options?.id === "string" ? options.id : "?"})`;
  if (options === null || typeof options !== "object") throw new AuthConfigError("oidc", "needs an options object");
  checkBase(options, field);
  return {
    kind: "oidc",
    id: options.id,
    name: options.name ?? options.id,
    issuer: checkUrl(options.issuer, `${field}.issuer`),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: merged(["openid", "email", "profile"], options.scopes),
    responseMode: options.responseMode ?? "query",
    emailVerified: emailVerifiedClaim,
    nativeClientIds: checkClientIds(options.nativeClientIds, `${field}.nativeClientIds`),
  };
}

/**
 * A plain OAuth 2.0 provider: authorization, token and user endpoints, and how to read the user API's answer.
 * `mapProfile` must say `emailVerified: true` only when the provider states the address is verified.
 *
 * @example
 * oauth2({
 *   id: "acme", authorizationUrl: "https://acme.example/oauth/authorize", tokenUrl: "https://acme.example/oauth/token",
 *   userInfoUrl: "https://api.acme.example/me", clientId, clientSecret, scopes: ["profile"],
 *   mapProfile: (p) => ({ id: String(p.id), email: null, emailVerified: false, name: null, image: null }),
 * });
 */
export function oauth2(options: {
  id: string;
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
  name?: string;
  issuer?: string;
  mapProfile: OAuth2Provider["mapProfile"];
}): OAuth2Provider {
  if (options === null || typeof options !== "object") throw new AuthConfigError("oauth2", "needs an options object");
  const field = `oauth2(${typeof options.id === "string" ? options.id : "?"})`;
  checkBase(options, field);
  if (typeof options.mapProfile !== "function") throw new AuthConfigError(`${field}.mapProfile`, "must be a function");
  return {
    kind: "oauth2",
    id: options.id,
    name: options.name ?? options.id,
    authorizationUrl: checkUrl(options.authorizationUrl, `${field}.authorizationUrl`),
    tokenUrl: checkUrl(options.tokenUrl, `${field}.tokenUrl`),
    userInfoUrl: checkUrl(options.userInfoUrl, `${field}.userInfoUrl`),
    issuer: options.issuer === undefined ? null : checkUrl(options.issuer, `${field}.issuer`),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: merged([], options.scopes),
    responseMode: "query",
    mapProfile: options.mapProfile,
  };
}
