import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "./duration.ts";

/** The options every emailed link has: its lifetime, its page on this site, another origin instead. */
export interface LinkOptions {
  expiresIn: Duration;
  callbackPath: string;
  callbackUrlOverride?: string;
}

/** A link's options resolved: the lifetime in milliseconds, the override checked (or null). */
export interface ResolvedLink {
  expiresInMs: number;
  callbackPath: string;
  callbackUrlOverride: string | null;
}

function callbackOverride(value: string | undefined, field: string, baseOrigin: string): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthConfigError(field, "must be an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new AuthConfigError(field, "must be http(s)");
  if (url.origin === baseOrigin)
    throw new AuthConfigError(field, "is only for another origin; use callbackPath for baseUrl's origin");
  return url.toString();
}

/** One emailed link's options (`at` names its group in errors: `emailPassword.passwordReset`). */
export function resolveLink(group: LinkOptions, at: string, baseOrigin: string): ResolvedLink {
  return {
    expiresInMs: parseDuration(group.expiresIn, `${at}.expiresIn`),
    callbackPath: group.callbackPath,
    callbackUrlOverride: callbackOverride(group.callbackUrlOverride, `${at}.callbackUrlOverride`, baseOrigin),
  };
}
