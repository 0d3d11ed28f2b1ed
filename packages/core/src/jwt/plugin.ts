import type { AuthContext } from "../context/context.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { JwkStore } from "../ports/store.ts";
import { CustomSignerSource } from "./custom-signer.ts";
import { KeyEnvelope } from "./key-envelope.ts";
import { StoredKeyRing } from "./key-ring.ts";
import { JwtService, type JwtSettings } from "./jwt.ts";
import {
  resolveJwtOptions,
  type JsonWebKeySet,
  type JwtClaims,
  type JwtPayloadContext,
  type JwtSignerFactory,
  type JwtOptions,
} from "./options.ts";

/** What `jwt()` adds to `auth.api`. */
export interface JwtApi {
  /** A JWT for a session (`{ user, session }`, e.g. what `auth.api.getSession(token)` returns). */
  signJwt(session: JwtPayloadContext): Promise<string>;
  /** Verifies a Latchkey JWT (alg, signature, `iss`, `aud`, `exp`); the claims, or AuthError `INVALID_JWT`. */
  verifyJwt(token: string): Promise<JwtClaims>;
  /** The JWKS document served at `/jwks`. */
  getJwks(): Promise<JsonWebKeySet>;
  /**
   * Creates a new signing key that signs at once and retires the others (they stay in the JWKS for `gracePeriod`).
   * `force`: even when the current key cannot be decrypted with this instance's secret. `revoke`: a compromised key;
   * the older keys are deleted at once (no grace), so the tokens they signed stop verifying.
   */
  rotateJwks(options?: { force?: boolean; revoke?: boolean }): Promise<{ kid: string }>;
}

/** What `jwt()` installs: `core.plugins.get(JWT_PLUGIN_ID)`; `options` are the running settings. */
export type JwtInstalled = InstalledPlugin<JwtService, JwtApi, JwtSettings>;

/**
 * The id `jwt()` installs under, typed with what it installs.
 *
 * @example
 * const { service } = auth.core.plugins.get(JWT_PLUGIN_ID)!;
 * const token = await service.sign(session);
 */
export const JWT_PLUGIN_ID = "jwt" as PluginId<"jwt", JwtInstalled>;

/**
 * `jwt()` needs the `jwks` store port for its stored key ring; with `signerFactory` it needs none.
 *
 * @example
 * const plugin: JwtPlugin = jwt({ alg: "ES256" });
 */
export type JwtPlugin = AuthPlugin<"jwt", JwtInstalled, "jwks"> | AuthPlugin<"jwt", JwtInstalled, never>;

function installed(service: JwtService): JwtInstalled {
  const api: JwtApi = {
    signJwt: (session) => service.sign(session),
    verifyJwt: (token) => service.verify(token),
    getJwks: () => service.jwks(),
    rotateJwks: (options) => service.rotate(options),
  };
  return { service, api, options: service.options };
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
export function jwt(options: JwtOptions = {}): JwtPlugin {
  const resolved = resolveJwtOptions(options);
  const { signerFactory } = resolved;
  if (signerFactory) {
    const signing: AuthPlugin<"jwt", JwtInstalled, never> = {
      id: JWT_PLUGIN_ID,
      requires: [],
      init: (ctx) => installed(new JwtService(ctx, resolved, (o) => customSigner(ctx, signerFactory, o))),
    };
    return signing;
  }
  const stored: AuthPlugin<"jwt", JwtInstalled, "jwks"> = {
    id: JWT_PLUGIN_ID,
    requires: ["jwks"],
    init: (ctx, { jwks }) => installed(new JwtService(ctx, resolved, (o) => storedKeyRing(ctx, jwks, o))),
  };
  return stored;
}

function customSigner(ctx: AuthContext, factory: JwtSignerFactory, o: JwtSettings): CustomSignerSource {
  return new CustomSignerSource(factory, o.alg, ctx.clock, o.keyCacheTtlMs);
}

function storedKeyRing(ctx: AuthContext, jwks: JwkStore, o: JwtSettings): StoredKeyRing {
  return new StoredKeyRing({
    store: jwks,
    clock: ctx.clock,
    random: ctx.random,
    alg: o.alg,
    envelope: new KeyEnvelope(ctx.config.secret, ctx.random),
    encrypt: !o.disablePrivateKeyEncryption,
    rotationIntervalMs: o.rotationIntervalMs,
    gracePeriodMs: o.gracePeriodMs,
    keyCacheTtlMs: o.keyCacheTtlMs,
    // An instance's key cache plus a verifier's cached /jwks answer (max-age = keyCacheTtl).
    publishAheadMs: 2 * o.keyCacheTtlMs,
  });
}
