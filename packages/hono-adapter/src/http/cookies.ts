import type { Context } from "hono";
import type { CookieDescriptor } from "@latchkey/core";

/** Serialises a core cookie descriptor into a `Set-Cookie` header value. */
export function serializeCookie(cookie: CookieDescriptor): string {
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

/** Reads one cookie value from the request without parsing the rest. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  // Pair by pair (`;`-separated, name and value split at the first `=`, both trimmed), without splitting the
  // whole header into an array: it is read on every request that carries cookies.
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end < 0) end = header.length;
    const eq = header.indexOf("=", start);
    if (eq >= 0 && eq < end && header.slice(start, eq).trim() === name) return header.slice(eq + 1, end).trim();
    start = end + 1;
  }
  return null;
}
