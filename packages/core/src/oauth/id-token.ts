import type * as oauth from "oauth4webapi";
import { errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from "jose";
import { ProtocolError } from "./protocol-shapes.ts";

/** Asymmetric JWS algorithms an ID token may be signed with: never `none`, never HMAC keyed with the client secret. */
export const ID_TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

/** Seconds of clock difference tolerated with a provider (ID token `exp`, `iat`, `nbf`). */
export const CLOCK_TOLERANCE_S = 60;

/**
 * Verifies an ID token: its signature against the issuer's JWKS (an asymmetric algorithm), issuer, audience (one of
 * `audiences`, and `azp` among them when there are several), expiry, issued-at and nonce; answers its claims.
 */
export async function verifyIdToken(
  jwks: JWTVerifyGetKey,
  server: oauth.AuthorizationServer,
  idToken: string,
  nonce: string,
  audiences: string[],
  now: number,
): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(idToken, jwks, {
      issuer: server.issuer,
      audience: audiences,
      algorithms: ID_TOKEN_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(now),
      requiredClaims: ["sub", "iat", "exp"],
    });
    if (typeof payload.iat !== "number" || payload.iat * 1000 > now + CLOCK_TOLERANCE_S * 1000)
      throw new ProtocolError("OAUTH_INVALID_RESPONSE", "The ID token was issued in the future");
    if (payload.nonce !== nonce) throw new ProtocolError("OAUTH_INVALID_RESPONSE", "The ID token's nonce differs");
    if (
      Array.isArray(payload.aud) &&
      payload.aud.length > 1 &&
      !(typeof payload.azp === "string" && audiences.includes(payload.azp))
    )
      throw new ProtocolError("OAUTH_INVALID_RESPONSE", "The ID token was issued to another party");
    return payload as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const unreachable = error instanceof joseErrors.JWKSTimeout;
    throw new ProtocolError(
      unreachable ? "OAUTH_PROVIDER_ERROR" : "OAUTH_INVALID_RESPONSE",
      "The ID token is not valid",
      { cause: error },
    );
  }
}
