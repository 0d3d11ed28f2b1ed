import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";
import type { Clock } from "../ports/clock.ts";
import type { SessionView, UserView } from "../session/session.ts";

/**
 * Options of `jwt({ ... })`. See docs/jwt.md.
 *
 * @example
 * jwt({ alg: "ES256", expiresIn: "10m", audience: "https://api.example", payloadBuilder: ({ user }) => ({ role: user.appMetadata.role }) });
 */
export interface JwtOptions {
  /** Default `"EdDSA"` (Ed25519). Also `"ES256"`, `"RS256"`, `"PS256"`. */
  alg?: JwtAlgorithm;
  /** Token lifetime. Default `"15m"`. */
  expiresIn?: Duration;
  /** `iss` claim. Default: `baseUrl`. */
  issuer?: string;
  /** `aud` claim. Default: `baseUrl`. */
  audience?: string | string[];
  /** A new signing key after this long; `false` never rotates automatically. Default `"90d"`. */
  rotationInterval?: Duration | false;
  /** How long a retired key stays in the JWKS. Default `"30d"`; must exceed `expiresIn` + `keyCacheTtl`. */
  gracePeriod?: Duration;
  /** How long an instance trusts its in-memory copy of the keys before re-reading the store. Default `"60s"`. */
  keyCacheTtl?: Duration;
  /** No `set-auth-jwt` header on `GET /get-session`. Default false. */
  disableSettingJwtHeader?: boolean;
  /** Store private keys as plain JWK JSON instead of an AES-256-GCM envelope. Default false. */
  disablePrivateKeyEncryption?: boolean;
  /** Default `"/jwks"`. */
  jwksPath?: string;
  /** Default `"/token"`. */
  tokenPath?: string;
  /** Extra claims. It cannot override `sub`, `sid`, `iat`, `exp`, `iss`, `aud`; it may override or drop `email`/`email_verified`. */
  payloadBuilder?: (context: JwtPayloadContext) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** A custom signer (KMS). Its keys replace the stored ones; rotation is then the signer's job. */
  signerFactory?: JwtSignerFactory;
}

/** Signing algorithms. `"Ed25519"` is an alias of `"EdDSA"` (the header says `EdDSA`, which every verifier knows). */
export type JwtAlgorithm = "EdDSA" | "Ed25519" | "ES256" | "RS256" | "PS256";

/** The algorithm as it appears in headers and JWKs. */
export type JwsAlgorithm = "EdDSA" | "ES256" | "RS256" | "PS256";

/** The protected header of every token: `{ alg, kid, typ: "JWT" }` (a type alias, so jose's header types accept it). */
export type JwtHeader = {
  alg: JwsAlgorithm;
  kid: string;
  typ: "JWT";
};

/** The claims of a Latchkey JWT (plus whatever `payloadBuilder` adds). Times are seconds since the epoch. */
export interface JwtClaims {
  sub: string;
  sid: string;
  email?: string;
  email_verified?: boolean;
  iat: number;
  exp: number;
  iss: string;
  aud: string | string[];
  [claim: string]: unknown;
}

/** A public key as published at `/jwks`: never a private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`). */
export interface PublicJwk {
  kty: string;
  kid: string;
  alg: string;
  use: "sig";
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

/** `{ keys }`: the JWKS document. */
export interface JsonWebKeySet {
  keys: PublicJwk[];
}

/** What `payloadBuilder` receives. */
export interface JwtPayloadContext {
  user: UserView;
  session: SessionView;
}

/**
 * A custom signer, e.g. a key-management service. Latchkey builds the header and claims; the signer returns
 * the compact JWS of exactly that header and payload, and lists the public keys that verify it.
 *
 * @example
 * const signer: JwtSigner = {
 *   currentKid: () => "kms-key-1",
 *   sign: ({ header, payload }) => kms.signCompactJws(header, payload),
 *   publicKeys: () => kms.listPublicJwks(),
 * };
 */
export interface JwtSigner {
  /** The kid of the key that signs now; it goes into the header and must be among `publicKeys()`. */
  currentKid(): string | Promise<string>;
  /** Returns `base64url(header).base64url(payload).base64url(signature)`. */
  sign(input: { header: JwtHeader; payload: JwtClaims }): Promise<string>;
  /** Public JWKs (each with `kid`) published at `/jwks`; include retired keys while their tokens live. */
  publicKeys(): Promise<Array<Record<string, unknown>>>;
}

/** Builds the custom signer once, on first use. */
export type JwtSignerFactory = (context: { alg: JwsAlgorithm; clock: Clock }) => JwtSigner | Promise<JwtSigner>;

/** Options after validation; issuer and audience fall back to `baseUrl` when the plugin starts. */
export interface ResolvedJwtOptions {
  alg: JwsAlgorithm;
  expiresInSeconds: number;
  issuer: string | null;
  audience: string | string[] | null;
  rotationIntervalMs: number | null;
  gracePeriodMs: number;
  keyCacheTtlMs: number;
  disableSettingJwtHeader: boolean;
  disablePrivateKeyEncryption: boolean;
  jwksPath: string;
  tokenPath: string;
  payloadBuilder: JwtOptions["payloadBuilder"] | null;
  signerFactory: JwtSignerFactory | null;
}

/** Every key `jwt({...})` accepts. A new option is one line here plus its validation below. */
export const JWT_OPTION_SHAPE: OptionShape = {
  alg: true,
  expiresIn: true,
  issuer: true,
  audience: true,
  rotationInterval: true,
  gracePeriod: true,
  keyCacheTtl: true,
  disableSettingJwtHeader: true,
  disablePrivateKeyEncryption: true,
  jwksPath: true,
  tokenPath: true,
  payloadBuilder: true,
  signerFactory: true,
};
const ALGORITHMS: Record<JwtAlgorithm, JwsAlgorithm> = {
  EdDSA: "EdDSA",
  Ed25519: "EdDSA",
  ES256: "ES256",
  RS256: "RS256",
  PS256: "PS256",
};
// Literal segments only: `:` and `*` would turn the path into a Hono pattern.
const PATH_SHAPE = /^(\/[A-Za-z0-9._~-]+)+$/;

function routePath(value: unknown, fallback: string, field: string): string {
  const v = value ?? fallback;
  if (typeof v !== "string" || !PATH_SHAPE.test(v))
    throw new AuthConfigError(field, 'must be a path like "/jwks" (letters, digits, . _ ~ - and single slashes)');
  return v;
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new AuthConfigError(field, "must be a boolean");
  return value;
}

function nonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new AuthConfigError(field, "must be a non-empty string");
  return value;
}

/**
 * Validates `jwt({ ... })` options when the plugin is created; throws `AuthConfigError` naming `jwt.<field>`.
 *
 * @example
 * import { resolveJwtOptions } from "@latchkey/core";
 * resolveJwtOptions({ alg: "ES256", expiresIn: "5m" }).expiresInSeconds; // 300
 */
export function resolveJwtOptions(options: JwtOptions = {}): ResolvedJwtOptions {
  if (options === null || typeof options !== "object") throw new AuthConfigError("jwt", "options must be an object");
  rejectUnknownOptions(options, JWT_OPTION_SHAPE, "jwt");
  const algName: unknown = options.alg ?? "EdDSA";
  if (typeof algName !== "string" || !Object.hasOwn(ALGORITHMS, algName))
    throw new AuthConfigError("jwt.alg", 'must be "EdDSA" (or "Ed25519"), "ES256", "RS256" or "PS256"');
  const alg = ALGORITHMS[algName as JwtAlgorithm];
  const expiresInMs = parseDuration(options.expiresIn ?? "15m", "jwt.expiresIn");
  if (expiresInMs < 1000 || expiresInMs % 1000 !== 0)
    throw new AuthConfigError("jwt.expiresIn", "must be a whole number of seconds, at least 1");
  const keyCacheTtlMs = parseDuration(options.keyCacheTtl ?? "60s", "jwt.keyCacheTtl");

  const signerFactory = options.signerFactory ?? null;
  if (signerFactory !== null && typeof signerFactory !== "function")
    throw new AuthConfigError("jwt.signerFactory", "must be a function returning a signer");
  if (signerFactory) {
    // The signer owns its keys: settings about stored keys would silently do nothing.
    for (const field of ["rotationInterval", "gracePeriod", "disablePrivateKeyEncryption"] as const) {
      if (options[field] !== undefined)
        throw new AuthConfigError(
          `jwt.${field}`,
          "has no effect with jwt.signerFactory (the signer manages its own keys)",
        );
    }
  }

  let rotationIntervalMs: number | null = null;
  const rotation = options.rotationInterval ?? "90d";
  if (rotation !== false) {
    rotationIntervalMs = parseDuration(rotation, "jwt.rotationInterval");
    if (rotationIntervalMs <= 2 * keyCacheTtlMs)
      throw new AuthConfigError(
        "jwt.rotationInterval",
        "must be longer than twice jwt.keyCacheTtl (the next key is published that long before it signs)",
      );
  }
  const gracePeriodMs = parseDuration(options.gracePeriod ?? "30d", "jwt.gracePeriod");
  if (gracePeriodMs <= expiresInMs + keyCacheTtlMs) {
    throw new AuthConfigError(
      "jwt.gracePeriod",
      "must exceed jwt.expiresIn plus jwt.keyCacheTtl (tokens signed just before a rotation must stay verifiable until they expire)",
    );
  }

  const issuer = options.issuer === undefined ? null : nonEmpty(options.issuer, "jwt.issuer");
  let audience: string | string[] | null = null;
  if (Array.isArray(options.audience)) {
    if (options.audience.length === 0) throw new AuthConfigError("jwt.audience", "must not be an empty list");
    audience = options.audience.map((a, i) => nonEmpty(a, `jwt.audience[${i}]`));
  } else if (options.audience !== undefined) {
    audience = nonEmpty(options.audience, "jwt.audience");
  }

  const jwksPath = routePath(options.jwksPath, "/jwks", "jwt.jwksPath");
  const tokenPath = routePath(options.tokenPath, "/token", "jwt.tokenPath");
  if (jwksPath === tokenPath) throw new AuthConfigError("jwt.tokenPath", "must differ from jwt.jwksPath");
  if (options.payloadBuilder !== undefined && typeof options.payloadBuilder !== "function")
    throw new AuthConfigError("jwt.payloadBuilder", "must be a function");

  return {
    alg,
    expiresInSeconds: expiresInMs / 1000,
    issuer,
    audience,
    rotationIntervalMs,
    gracePeriodMs,
    keyCacheTtlMs,
    disableSettingJwtHeader: flag(options.disableSettingJwtHeader, "jwt.disableSettingJwtHeader"),
    disablePrivateKeyEncryption: flag(options.disablePrivateKeyEncryption, "jwt.disablePrivateKeyEncryption"),
    jwksPath,
    tokenPath,
    payloadBuilder: options.payloadBuilder ?? null,
    signerFactory,
  };
}
