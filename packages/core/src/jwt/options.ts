import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, flag, optional, shapeOf, type InputOf } from "../config/schema.ts";
import type { Clock } from "../ports/clock.ts";
import type { SessionView, UserView } from "../session/session.ts";

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
  payloadBuilder: JwtPayloadBuilder | null;
  signerFactory: JwtSignerFactory | null;
}

const ALGORITHMS: Record<JwtAlgorithm, JwsAlgorithm> = {
  EdDSA: "EdDSA",
  Ed25519: "EdDSA",
  ES256: "ES256",
  RS256: "RS256",
  PS256: "PS256",
};
// Literal segments only: `:` and `*` would turn the path into a Hono pattern.
const PATH_SHAPE = /^(\/[A-Za-z0-9._~-]+)+$/;

function routePath(value: unknown, field: string): void {
  if (typeof value !== "string" || !PATH_SHAPE.test(value))
    throw new AuthConfigError(field, 'must be a path like "/jwks" (letters, digits, . _ ~ - and single slashes)');
}

function nonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new AuthConfigError(field, "must be a non-empty string");
  return value;
}

function isFunction(message: string) {
  return (value: unknown, field: string) => {
    if (typeof value !== "function") throw new AuthConfigError(field, message);
  };
}

const isDuration = (value: Duration, field: string) => void parseDuration(value, field);

/** Extra claims of every token. */
export type JwtPayloadBuilder = (
  context: JwtPayloadContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The one definition of `jwt({ ... })`'s options: type, default, check, docs row (docs/options.md). */
export const JWT_SCHEMA = {
  /**
   * signing algorithm: `"EdDSA"` (Ed25519), `"Ed25519"` (alias), `"ES256"`, `"RS256"`, `"PS256"`
   * @defaultValue `"EdDSA"` (Ed25519)
   */
  alg: defaulted<JwtAlgorithm>("EdDSA", {
    check: (v, field) => {
      if (typeof v !== "string" || !Object.hasOwn(ALGORITHMS, v))
        throw new AuthConfigError(field, 'must be "EdDSA" (or "Ed25519"), "ES256", "RS256" or "PS256"');
    },
  }),
  /** token lifetime, whole seconds */
  expiresIn: defaulted<Duration>("15m", {
    check: (v, field) => {
      const ms = parseDuration(v, field);
      if (ms < 1000 || ms % 1000 !== 0)
        throw new AuthConfigError(field, "must be a whole number of seconds, at least 1");
    },
  }),
  /**
   * `iss` claim
   * @defaultValue `baseUrl`
   */
  issuer: optional<string>({ check: (v, field) => void nonEmpty(v, field) }),
  /**
   * `aud` claim; may be a list
   * @defaultValue `baseUrl`
   */
  audience: optional<string | string[]>({
    check: (v, field) => {
      if (!Array.isArray(v)) {
        nonEmpty(v, field);
        return;
      }
      if (v.length === 0) throw new AuthConfigError(field, "must not be an empty list");
      for (const [i, a] of v.entries()) nonEmpty(a, `${field}[${i}]`);
    },
  }),
  /** a new signing key after this long; `false` disables automatic rotation; must exceed twice `keyCacheTtl` */
  rotationInterval: defaulted<Duration | false>("90d", {
    check: (v, field) => (v === false ? undefined : isDuration(v, field)),
  }),
  /** retired keys stay in the JWKS this long; must exceed `expiresIn + keyCacheTtl` */
  gracePeriod: defaulted<Duration>("30d", { check: isDuration }),
  /** in-memory key cache per instance; another instance's rotation is seen within it */
  keyCacheTtl: defaulted<Duration>("60s", { check: isDuration }),
  /** no `set-auth-jwt` header on `get-session` */
  disableSettingJwtHeader: flag(false),
  /** private keys stored as plain JWK JSON instead of AES-256-GCM envelopes */
  disablePrivateKeyEncryption: flag(false),
  /** literal path of the JWKS route; must differ from `tokenPath` */
  jwksPath: defaulted<string>("/jwks", { check: routePath }),
  /** literal path of the token route; must differ from `jwksPath` */
  tokenPath: defaulted<string>("/token", { check: routePath }),
  /**
   * `({ user, session }) => claims`; cannot override `sub sid iat exp iss aud`; may override or drop
   * `email`/`email_verified`
   */
  payloadBuilder: optional<JwtPayloadBuilder>({ check: isFunction("must be a function") }),
  /** custom signer (KMS); not combinable with `rotationInterval`, `gracePeriod`, `disablePrivateKeyEncryption` */
  signerFactory: optional<JwtSignerFactory>({
    check: (v, field) => (v === null ? undefined : isFunction("must be a function returning a signer")(v, field)),
  }),
};

/**
 * Options of `jwt({ ... })`. See docs/jwt.md.
 *
 * @example
 * jwt({ alg: "ES256", expiresIn: "10m", audience: "https://api.example", payloadBuilder: ({ user }) => ({ role: user.appMetadata.role }) });
 */
export type JwtOptions = InputOf<typeof JWT_SCHEMA>;

/** Every key `jwt({...})` accepts (from `JWT_SCHEMA`). */
export const JWT_OPTION_SHAPE = shapeOf(JWT_SCHEMA);

/**
 * Validates `jwt({ ... })` options when the plugin is created; throws `AuthConfigError` naming `jwt.<field>`.
 *
 * @example
 * import { resolveJwtOptions } from "@latchkey/core";
 * resolveJwtOptions({ alg: "ES256", expiresIn: "5m" }).expiresInSeconds; // 300
 */
export function resolveJwtOptions(options: JwtOptions = {}): ResolvedJwtOptions {
  const o = applySchema(JWT_SCHEMA, options, "jwt");
  if (o.signerFactory) {
    // The signer owns its keys: settings about stored keys would silently do nothing.
    for (const field of ["rotationInterval", "gracePeriod", "disablePrivateKeyEncryption"] as const) {
      if (options[field] !== undefined)
        throw new AuthConfigError(
          `jwt.${field}`,
          "has no effect with jwt.signerFactory (the signer manages its own keys)",
        );
    }
  }
  const expiresInMs = parseDuration(o.expiresIn, "jwt.expiresIn");
  const keyCacheTtlMs = parseDuration(o.keyCacheTtl, "jwt.keyCacheTtl");
  const rotationIntervalMs =
    o.rotationInterval === false ? null : parseDuration(o.rotationInterval, "jwt.rotationInterval");
  if (rotationIntervalMs !== null && rotationIntervalMs <= 2 * keyCacheTtlMs)
    throw new AuthConfigError(
      "jwt.rotationInterval",
      "must be longer than twice jwt.keyCacheTtl (the next key is published that long before it signs)",
    );
  const gracePeriodMs = parseDuration(o.gracePeriod, "jwt.gracePeriod");
  if (gracePeriodMs <= expiresInMs + keyCacheTtlMs) {
    throw new AuthConfigError(
      "jwt.gracePeriod",
      "must exceed jwt.expiresIn plus jwt.keyCacheTtl (tokens signed just before a rotation must stay verifiable until they expire)",
    );
  }
  if (o.jwksPath === o.tokenPath) throw new AuthConfigError("jwt.tokenPath", "must differ from jwt.jwksPath");
  return {
    alg: ALGORITHMS[o.alg],
    expiresInSeconds: expiresInMs / 1000,
    issuer: o.issuer ?? null,
    audience: o.audience ?? null,
    rotationIntervalMs,
    gracePeriodMs,
    keyCacheTtlMs,
    disableSettingJwtHeader: o.disableSettingJwtHeader,
    disablePrivateKeyEncryption: o.disablePrivateKeyEncryption,
    jwksPath: o.jwksPath,
    tokenPath: o.tokenPath,
    payloadBuilder: o.payloadBuilder ?? null,
    signerFactory: o.signerFactory ?? null,
  };
}
