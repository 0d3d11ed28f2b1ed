import { parseDuration, type Duration } from "../config/duration.ts";
import { defaulted, type FilledOf } from "../config/schema.ts";
import { isDuration } from "../config/checks.ts";
import type { ResolvedConfig } from "../kernel/config.ts";

/** `createAuth({ deviceCookies })`: the signed cookie that marks a browser an account signed in from before. */
export const DEVICE_COOKIES_SCHEMA = {
  /**
   * a successful sign-in sets a signed, HttpOnly device cookie bound to the account (rotated on every use, revoked
   * by a password change or reset); a password sign-in presenting it for the account it names skips the per-IP and
   * per-network rules and has a lockout of its own. `false` turns device cookies off
   */
  enabled: defaulted<boolean>(true),
  /** lifetime of a device cookie (each use rotates it and starts this lifetime again) */
  expiresIn: defaulted<Duration>("30d", { check: isDuration }),
};

/** Device cookies are named after the session cookie's rules (`secure`, `domain`). */
export function resolveDeviceCookies(
  o: FilledOf<typeof DEVICE_COOKIES_SCHEMA>,
  secure: boolean,
  domain: string | undefined,
): ResolvedConfig["deviceCookies"] {
  return {
    enabled: o.enabled,
    expiresInMs: parseDuration(o.expiresIn, "deviceCookies.expiresIn"),
    name: !secure ? "latchkey.device" : domain ? "__Secure-latchkey.device" : "__Host-latchkey.device",
  };
}
