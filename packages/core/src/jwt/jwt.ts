import { decodeProtectedHeader, errors, jwtVerify } from "jose";
import { AuthError } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { KeySource } from "./key-source.ts";
import type { JsonWebKeySet, JwsAlgorithm, JwtClaims, JwtPayloadContext, ResolvedJwtOptions } from "./options.ts";

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
 * const jwtService = auth.core.plugins.get(JWT_PLUGIN_ID)!.service;
 * const token = await jwtService.sign(session);
 * const claims = await jwtService.verify(token);
 */
export class JwtService {
  readonly options: JwtSettings;
  private readonly source: KeySource;
  private lastUnknownKidRefresh = Number.NEGATIVE_INFINITY;

  /** `keySource` builds where keys come from (the stored key ring or a custom signer) from the settings. */
  constructor(
    private readonly ctx: AuthContext,
    resolved: ResolvedJwtOptions,
    keySource: (settings: JwtSettings) => KeySource,
  ) {
    this.options = {
      ...resolved,
      issuer: resolved.issuer ?? ctx.config.baseUrl,
      audience: resolved.audience ?? ctx.config.baseUrl,
    };
    this.source = keySource(this.options);
  }

  /** The JWKS document (`{ keys }`), current key first. */
  async jwks(): Promise<JsonWebKeySet> {
    return (await this.source.publicKeys()).jwks;
  }

  /**
   * Creates a new signing key that signs now and retires the older ones; `force` even when the current key cannot
   * be decrypted here; `revoke` deletes the older keys at once (a compromised key: no grace).
   */
  rotate(options?: { force?: boolean; revoke?: boolean }): Promise<{ kid: string }> {
    return this.source.rotate({ force: options?.force === true, revoke: options?.revoke === true });
  }

  get alg(): JwsAlgorithm {
    return this.options.alg;
  }

  /**
   * Signs `{ sub, sid, email, email_verified, iat, exp, iss, aud }`, `org_id` and `org_role` when the session has an
   * active organization the user is still a member of, plus `payloadBuilder`'s claims.
   */
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
    // The active organization (`organizations()`) and the member's current role in it: read from the membership row
    // at signing time, so a removed member's next token carries neither.
    const organizationId = session.activeOrganizationId;
    if (organizationId) {
      const member = await this.ctx.store.organizations?.findMember(organizationId, user.id);
      if (member) {
        payload.org_id = organizationId;
        payload.org_role = member.role;
      }
    }
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
