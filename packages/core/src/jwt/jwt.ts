import { decodeProtectedHeader, errors, jwtVerify } from "jose";
import { AuthError } from "../errors/errors.ts";
import type { AuthContext } from "../auth/context.ts";
import type { AuthPlugin } from "../auth/plugin.ts";
import { KeyEnvelope } from "./key-envelope.ts";
import { StoredKeyRing } from "./key-ring.ts";
import { CustomSignerSource } from "./custom-signer.ts";
import type { KeySource } from "./key-source.ts";
import {
  resolveJwtOptions,
  type JsonWebKeySet,
  type JwsAlgorithm,
  type JwtClaims,
  type JwtOptions,
  type JwtPayloadContext,
  type ResolvedJwtOptions,
} from "./options.ts";

/** What `jwt()` adds to `auth.api`. */
export interface JwtApi {
  /** A JWT for a session (`{ user, session }`, e.g. what `auth.api.getSession(token)` returns). */
  signJwt(session: JwtPayloadContext): Promise<string>;
  /** Verifies a Latchkey JWT (alg, signature, `iss`, `aud`, `exp`); the claims, or AuthError `INVALID_JWT`. */
  verifyJwt(token: string): Promise<JwtClaims>;
  /** The JWKS document served at `/jwks`. */
  getJwks(): Promise<JsonWebKeySet>;
  /** Creates a new signing key now and retires the others (they stay in the JWKS for `gracePeriod`). */
  rotateJwks(options?: { force?: boolean }): Promise<{ kid: string }>;
}

/**
 * Claims the service always sets itself; `payloadBuilder` cannot replace them.
 *
 * @example
 * import { RESERVED_CLAIMS } from "@latchkey/core";
 * RESERVED_CLAIMS.has("sub"); // true
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set(["sub", "sid", "iat", "exp", "iss", "aud"]);
const MAX_TOKEN_LENGTH = 16 * 1024;
// Unknown kids trigger at most one store re-read per this interval, so forged kids cannot flood the store.
const UNKNOWN_KID_COOLDOWN_MS = 10_000;

function invalid(message: string, cause?: unknown): AuthError {
  return new AuthError("INVALID_JWT", message, cause === undefined ? {} : { cause });
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "The JWT has expired";
  if (error instanceof errors.JWTClaimValidationFailed) return `The JWT ${error.claim} claim is invalid`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The JWT signature is invalid";
  return "The JWT is invalid";
}

/** The settings a running JWT service uses (issuer and audience resolved against `baseUrl`). */
export interface JwtSettings extends ResolvedJwtOptions {
  issuer: string;
  audience: string | string[];
}

/**
 * The JWT feature: signs session JWTs, publishes the JWKS, verifies tokens for in-process resource servers.
 * Created by the `jwt()` plugin; hono-adapter serves it at `/token` and `/jwks`.
 *
 * @example
 * const jwtService = auth.core.plugin<JwtService>("jwt")!;
 * const token = await jwtService.sign(session);
 * const claims = await jwtService.verify(token);
 */
export class JwtService {
  readonly options: JwtSettings;
  readonly api: {
    signJwt(session: JwtPayloadContext): Promise<string>;
    verifyJwt(token: string): Promise<JwtClaims>;
    getJwks(): Promise<JsonWebKeySet>;
    rotateJwks(options?: { force?: boolean }): Promise<{ kid: string }>;
  };
  private readonly source: KeySource;
  private lastUnknownKidRefresh = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: AuthContext,
    resolved: ResolvedJwtOptions,
  ) {
    this.options = {
      ...resolved,
      issuer: resolved.issuer ?? ctx.config.baseUrl,
      audience: resolved.audience ?? ctx.config.baseUrl,
    };
    const o = this.options;
    this.source = o.signerFactory
      ? new CustomSignerSource(o.signerFactory, o.alg, ctx.clock, o.keyCacheTtlMs)
      : new StoredKeyRing({
          store: ctx.store.jwks,
          clock: ctx.clock,
          random: ctx.random,
          alg: o.alg,
          envelope: new KeyEnvelope(ctx.config.secret, ctx.random),
          encrypt: !o.disablePrivateKeyEncryption,
          rotationIntervalMs: o.rotationIntervalMs,
          gracePeriodMs: o.gracePeriodMs,
          keyCacheTtlMs: o.keyCacheTtlMs,
        });
    this.api = {
      signJwt: (session) => this.sign(session),
      verifyJwt: (token) => this.verify(token),
      getJwks: async () => (await this.source.publicKeys()).jwks,
      rotateJwks: (options) => this.source.rotate({ force: options?.force === true }),
    };
  }

  get alg(): JwsAlgorithm {
    return this.options.alg;
  }

  /** Signs `{ sub, sid, email, email_verified, iat, exp, iss, aud }` plus `payloadBuilder`'s claims. */
  async sign(context: JwtPayloadContext): Promise<string> {
    const { user, session } = context;
    const iat = Math.floor(this.ctx.clock.now() / 1000);
    const payload: JwtClaims = {
      sub: user.id,
      sid: session.id,
      email: user.email,
      email_verified: user.emailVerified,
      iat,
      exp: iat + this.options.expiresInSeconds,
      iss: this.options.issuer,
      aud: this.options.audience,
    };
    if (this.options.payloadBuilder) {
      const extra: unknown = await this.options.payloadBuilder({ user, session });
      if (extra === null || typeof extra !== "object" || Array.isArray(extra)) {
        throw new AuthError("INTERNAL_ERROR", "jwt.payloadBuilder must return an object of claims");
      }
      for (const [claim, value] of Object.entries(extra)) if (!RESERVED_CLAIMS.has(claim)) payload[claim] = value;
    }
    return this.source.sign(payload);
  }

  /** The JWKS body, serialised once per key change. */
  async jwksJson(): Promise<string> {
    return (await this.source.publicKeys()).json;
  }

  /** Verifies with the configured algorithm only, against the published keys; INVALID_JWT on any failure. */
  async verify(token: unknown): Promise<JwtClaims> {
    if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH)
      throw invalid("The JWT is malformed");
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch (cause) {
      throw invalid("The JWT is malformed", cause);
    }
    // The allowlist is checked before any key is chosen: `none` and HS256-with-the-public-key never get that far.
    if (header.alg !== this.options.alg)
      throw invalid(`The JWT algorithm is not allowed (expected ${this.options.alg})`);
    if (typeof header.kid !== "string" || header.kid === "") throw invalid("The JWT has no key id");
    let key = await (await this.source.publicKeys()).verificationKey(header.kid, this.options.alg);
    const now = this.ctx.clock.now();
    if (!key && now - this.lastUnknownKidRefresh >= UNKNOWN_KID_COOLDOWN_MS) {
      // Possibly a key another instance created since our cache was filled.
      this.lastUnknownKidRefresh = now;
      key = await (await this.source.refresh()).verificationKey(header.kid, this.options.alg);
    }
    if (!key) throw invalid("The JWT was signed with an unknown key");
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [this.options.alg],
        issuer: this.options.issuer,
        audience: this.options.audience,
        typ: "JWT",
        requiredClaims: ["sub", "sid", "iat", "exp"],
        currentDate: new Date(this.ctx.clock.now()),
      });
      return payload as JwtClaims;
    } catch (cause) {
      throw invalid(reasonOf(cause), cause);
    }
  }
}

/**
 * The JWT plugin: `POST|GET /token`, `GET /jwks`, the `set-auth-jwt` header on get-session, and
 * `auth.api.signJwt` / `verifyJwt` / `getJwks` / `rotateJwks`. Options are validated here (AuthConfigError `jwt.<field>`).
 *
 * @example
 * import { jwt } from "@latchkey/core";
 * const auth = createAuth({ secret, database, baseUrl, plugins: [jwt({ alg: "ES256", expiresIn: "10m" })] });
 * const claims = await auth.api.verifyJwt(token);
 */
export function jwt(options: JwtOptions = {}): AuthPlugin<"jwt", JwtService> {
  const resolved = resolveJwtOptions(options);
  return { id: "jwt", init: (ctx) => new JwtService(ctx, resolved) };
}
