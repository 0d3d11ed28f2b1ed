import { AuthError } from "../errors/errors.ts";
import type { ResolvedConfig } from "./config.ts";

// A plain address only: `local@domain`, nothing a mail library would read as a display name, a list or a group
// (`"ceo" <a@evil.com>`, `a@evil.com,b@x.co`). The local part refuses whitespace, control characters and
// `<>()[]\,;:"` (so no quoted local parts: see docs/security.md); the domain is dot-separated labels of letters,
// digits and hyphens (internationalised letters included). Delivery proves the rest.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what the shape refuses.
const EMAIL_LOCAL = /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+$/u;
const EMAIL_DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}][\p{L}\p{N}-]*[\p{L}\p{N}]$/u;

/** Trims and lower-cases; 400 INVALID_EMAIL when longer than 254 chars or not a plain address. */
export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  const at = e.indexOf("@");
  if (
    e.length > 254 ||
    at <= 0 ||
    at !== e.lastIndexOf("@") ||
    !EMAIL_LOCAL.test(e.slice(0, at)) ||
    !EMAIL_DOMAIN.test(e.slice(at + 1)) ||
    e.includes("..")
  )
    throw new AuthError("INVALID_EMAIL", "The email address is not valid");
  return e;
}

const USERNAME_SHAPE = /^[a-z0-9_.]{3,30}$/;

/** Lower-cases; 3..30 of a-z 0-9 _ . (stored lower-cased so uniqueness is case-insensitive). */
export function normalizeUsername(username: string): string {
  const u = username.trim().toLowerCase();
  if (!USERNAME_SHAPE.test(u))
    throw new AuthError("INVALID_USERNAME", "Usernames are 3 to 30 characters: letters, digits, _ and .");
  return u;
}

export function checkPasswordLength(config: ResolvedConfig, password: string): void {
  if (password.length < config.emailPassword.minPasswordLength)
    throw new AuthError(
      "PASSWORD_TOO_SHORT",
      `Passwords need at least ${config.emailPassword.minPasswordLength} characters`,
    );
  if (password.length > config.emailPassword.maxPasswordLength)
    throw new AuthError(
      "PASSWORD_TOO_LONG",
      `Passwords have at most ${config.emailPassword.maxPasswordLength} characters`,
    );
}

/**
 * Resolves where an emailed link points. A relative path joins baseUrl; an absolute URL must have a trusted
 * origin. Rejects protocol-relative (`//evil`), backslash (`/\evil`) and look-alike hosts (`trusted.evil.com`).
 */
export function resolveCallbackUrl(
  config: ResolvedConfig,
  candidate: string | undefined | null,
  fallback: string,
): string {
  if (candidate === undefined || candidate === null || candidate === "") return fallback;
  if (candidate.startsWith("/")) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a path with control characters is refused.
    if (candidate.startsWith("//") || candidate.includes("\\") || /[\u0000-\u001f]/.test(candidate)) {
      throw new AuthError("INVALID_CALLBACK_URL", "The callback URL is not trusted");
    }
    return config.baseUrl + candidate;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw new AuthError("INVALID_CALLBACK_URL", "The callback URL is not trusted");
  }
  if (
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    !config.trustedOrigins.includes(url.origin) ||
    url.username ||
    url.password
  ) {
    throw new AuthError("INVALID_CALLBACK_URL", "The callback URL is not trusted");
  }
  return url.toString();
}

/** Appends query parameters to a URL that may already have some. */
export function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
