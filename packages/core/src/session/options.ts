import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { defaulted, optional, type FilledOf } from "../config/schema.ts";
import { isDuration } from "../config/checks.ts";
import type { ResolvedConfig } from "../kernel/config.ts";

/** `createAuth({ session })`: how long a session lives, slides and stays fresh. */
export const SESSION_SCHEMA = {
  /** lifetime of a session (it slides forward on use, see `updateAge`) */
  expiresIn: defaulted<Duration>("7d", { check: isDuration }),
  /** a session older than this slides forward on use (new expiry, cookie re-sent); at most `expiresIn` */
  updateAge: defaulted<Duration>("1d", { check: isDuration }),
  /**
   * lifetime of a `rememberMe: false` sign-in (`POST /sign-in/email`, `/sign-in/email-otp`): it never slides past
   * it, and its cookie has no `Max-Age` (it ends with the browser); capped at `session.expiresIn`
   */
  shortExpiresIn: defaulted<Duration>("1d", { check: isDuration }),
  /**
   * a session created longer ago than this (sliding renewals do not count) is refused with 403 `SESSION_NOT_FRESH`
   * at `change-password`, `set-password`, `delete-account`, `delete-account/request`,
   * `email-otp/request-email-change`, `api-key/create`, `api-key/reroll` and an `api-key/update` that enables a
   * disabled key or adds a permission; signing in again gives a fresh one; `null` turns the check off
   */
  freshAge: defaulted<Duration | null>("1d", {
    nullable: true,
    check: (v, field) => (v === null ? undefined : isDuration(v, field)),
  }),
};

/** `createAuth({ cookies })`: the session cookie's name and scope. */
export const COOKIES_SCHEMA = {
  /**
   * cookie `__Host-latchkey.session` (host-only: Secure, `Path=/`, no `Domain`); `false` (development only)
   * gives `latchkey.session`
   */
  secure: defaulted<boolean>(true),
  /**
   * with a `domain` the cookie is `__Secure-latchkey.session` (`__Host-` forbids `Domain`), which every subdomain
   * of the domain can set as well: it trusts them all. Two session cookies in one request are no session (both
   * cleared)
   * @defaultValue host-only
   */
  domain: optional<string>(),
  /** `"None"` (needs `secure`) is for a front end on another site than the API; see docs/client.md */
  sameSite: defaulted<"Lax" | "Strict" | "None">("Lax"),
};

export function resolveSession(o: FilledOf<typeof SESSION_SCHEMA>): ResolvedConfig["session"] {
  const expiresInMs = parseDuration(o.expiresIn, "session.expiresIn");
  const updateAgeMs = parseDuration(o.updateAge, "session.updateAge");
  if (updateAgeMs > expiresInMs) throw new AuthConfigError("session.updateAge", "must not exceed session.expiresIn");
  return {
    expiresInMs,
    updateAgeMs,
    // Never longer than a remembered session.
    shortExpiresInMs: Math.min(parseDuration(o.shortExpiresIn, "session.shortExpiresIn"), expiresInMs),
    freshAgeMs: o.freshAge === null ? null : parseDuration(o.freshAge, "session.freshAge"),
  };
}

/** The session cookie's rules, some of which depend on `environment`. */
export function resolveCookies(
  o: FilledOf<typeof COOKIES_SCHEMA>,
  environment: "production" | "development",
): ResolvedConfig["cookies"] {
  const { secure, domain, sameSite } = o;
  if (sameSite === "None" && !secure)
    throw new AuthConfigError(
      "cookies.sameSite",
      '"None" needs secure cookies (browsers drop SameSite=None cookies without Secure)',
    );
  if (environment === "production" && !secure)
    throw new AuthConfigError(
      "cookies.secure",
      'cannot be false in production (set environment: "development" for local HTTP)',
    );
  return {
    secure,
    // `__Host-` binds the cookie to this host (Secure, Path=/, no Domain): a sibling subdomain cannot set or
    // shadow it. A configured domain needs `__Secure-`, which allows Domain.
    name: !secure ? "latchkey.session" : domain ? "__Secure-latchkey.session" : "__Host-latchkey.session",
    domain: domain ?? null,
    sameSite,
  };
}
