/** Why a step of the protocol failed: the flow ends on the error callback with this code. */
export type ProtocolFailure =
  | "OAUTH_ACCESS_DENIED"
  | "OAUTH_PROVIDER_ERROR"
  | "OAUTH_INVALID_RESPONSE"
  | "OAUTH_STATE_MISMATCH";

/** A failure of the protocol; `message` never carries provider text or tokens. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ProtocolFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The tokens a code or refresh grant returned, and the ID token's verified claims (OpenID Connect). */
export interface GrantedTokens {
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  /** From `expires_in`; null when the provider did not say. */
  expiresAt: Date | null;
  scope: string | null;
  claims: Record<string, unknown> | null;
}
