import type { ClientOptions } from "./client-options.ts";
import { SECOND_STEPS, SESSION_ENDING } from "./call-kinds.ts";
import type { OperationId } from "./types.ts";

/** The tokens a sign-in answer carries for a Bearer client (`credentials.*`, and a second step's `twoFactorToken`). */
function credentialsOf(payload: unknown): {
  token: string | null;
  deviceToken: string | null;
  trustedDeviceToken: string | null;
  twoFactorToken: string | null;
} {
  const answer = payload as {
    credentials?: { token?: unknown; deviceToken?: unknown; trustedDeviceToken?: unknown };
    twoFactorToken?: unknown;
    deviceToken?: unknown;
  } | null;
  const credentials = answer?.credentials;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    token: text(credentials?.token),
    deviceToken: text(credentials?.deviceToken) ?? text(answer?.deviceToken),
    trustedDeviceToken: text(credentials?.trustedDeviceToken),
    twoFactorToken: text(answer?.twoFactorToken),
  };
}

/** Bearer mode's tokens: the session's, the device's, the trusted device's and a pending two-factor sign-in's. */
export function bearerTokens(options: ClientOptions) {
  let token = options.token ?? null;
  let deviceToken = options.deviceToken ?? null;
  let trustedDeviceToken = options.trustedDeviceToken ?? null;
  // The pending two-factor sign-in of the last sign-in that answered `twoFactorRequired`.
  let twoFactorToken: string | null = null;
  const setToken = (next: string | null) => {
    if (next === token) return;
    token = next;
    options.onTokenChange?.(next);
  };
  return {
    /** The tokens a call leaves with (a sign-out forgets the session token before its request leaves). */
    current: () => ({ token, deviceToken, trustedDeviceToken, twoFactorToken }),
    get token() {
      return token;
    },
    setToken,
    /** The tokens an answer carries; a session-ending call drops the session token. */
    keep(operationId: OperationId, payload: unknown) {
      const found = credentialsOf(payload);
      if (found.deviceToken !== null && found.deviceToken !== deviceToken) {
        deviceToken = found.deviceToken;
        options.onDeviceTokenChange?.(deviceToken);
      }
      if (found.trustedDeviceToken !== null && found.trustedDeviceToken !== trustedDeviceToken) {
        trustedDeviceToken = found.trustedDeviceToken;
        options.onTrustedDeviceTokenChange?.(trustedDeviceToken);
      }
      if (found.twoFactorToken !== null) twoFactorToken = found.twoFactorToken;
      else if (SECOND_STEPS.has(operationId)) twoFactorToken = null;
      if (found.token !== null) setToken(found.token);
      else if (SESSION_ENDING.has(operationId)) setToken(null);
    },
  };
}
