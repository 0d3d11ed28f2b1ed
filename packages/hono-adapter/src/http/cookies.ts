import type { Context } from "hono";
import type { CookieDescriptor } from "@latchkey/core";

/** Serialises a core cookie descriptor (or one at another path) into a `Set-Cookie` header value. */
export function serializeCookie(cookie: Omit<CookieDescriptor, "path"> & { path: string }): string {
  // No Max-Age (and no Expires): a browser-session cookie, which ends with the browser.
  const maxAge = cookie.maxAge === null ? "" : `; Max-Age=${cookie.maxAge}`;
  let out = `${cookie.name}=${cookie.value}${maxAge}; Path=${cookie.path}; HttpOnly; SameSite=${cookie.sameSite}`;
  if (cookie.secure) out += "; Secure";
  if (cookie.domain) out += `; Domain=${cookie.domain}`;
  return out;
}

/** Appends the cookie to the response being prepared; returns the `Set-Cookie` value. */
export function setCookie(c: Context, cookie: CookieDescriptor): string {
  const value = serializeCookie(cookie);
  c.header("set-cookie", value, { append: true });
  return value;
}

/** What `readSoleCookie` answers when the request carries the cookie more than once. */
/** The request header a Bearer client sends its device token in (`credentials.deviceToken` of a sign-in answer). */
export const DEVICE_HEADER = "latchkey-device";
/** The request header a Bearer client sends its trusted-device token in (`twoFactor()`, `credentials.trustedDeviceToken`). */
export const TRUSTED_DEVICE_HEADER = "latchkey-trusted-device";
/** The request header a Bearer client sends a pending two-factor sign-in's token in (`twoFactorToken`). */
export const TWO_FACTOR_HEADER = "latchkey-two-factor";

export const AMBIGUOUS = Symbol("cookie sent more than once");

/** Reads one cookie value from the request without parsing the rest: the first of its name. */
export function readCookie(header: string | undefined, name: string): string | null {
  const found = scanCookie(header, name, false);
  return found === AMBIGUOUS ? null : found;
}

/**
 * Reads a cookie that must be sent once: its value, null without it, or `AMBIGUOUS` when the request carries two
 * or more of that name. Browsers send every cookie that matches (another path, a parent domain a sibling subdomain
 * could set) with no way to tell which one is whose, so the first is not to be trusted.
 */
export function readSoleCookie(header: string | undefined, name: string): string | null | typeof AMBIGUOUS {
  return scanCookie(header, name, true);
}

function scanCookie(header: string | undefined, name: string, sole: boolean): string | null | typeof AMBIGUOUS {
  if (!header) return null;
  // Pair by pair (`;`-separated, name and value split at the first `=`, both trimmed), without splitting the
  // whole header into an array: it is read on every request that carries cookies.
  let found: string | null = null;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end < 0) end = header.length;
    const eq = header.indexOf("=", start);
    if (eq >= 0 && eq < end && header.slice(start, eq).trim() === name) {
      if (found !== null) return AMBIGUOUS;
      found = header.slice(eq + 1, end).trim();
      if (!sole) return found;
    }
    start = end + 1;
  }
  return found;
}
