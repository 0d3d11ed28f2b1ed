import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import type { PasswordCheck } from "../password/policy.ts";

/** Template name -> source text with `{{variable}}` placeholders. Names ending in `.html` escape their variables. */
export type EmailTemplates = Record<string, string>;

/** One rate-limit rule as an option: `{ window: "1m", max: 10 }`. */
export interface RateLimitRule {
  window: Duration;
  max: number;
  /**
   * Per-IP rules only: what one enclosing network (IPv4 /24, IPv6 /48) may spend per `window`, all its addresses
   * together. Default: 6 × `max`.
   */
  networkMax?: number;
}

export interface ResolvedRule {
  windowMs: number;
  max: number;
  /** Per-IP rules: the enclosing network's budget (absent: 6 × `max`). */
  networkMax?: number;
}

/** The validated options every service reads (`createAuthCore` resolves them once from `AuthOptions`). */
export interface ResolvedConfig {
  secret: string;
  baseUrl: string;
  baseOrigin: string;
  basePath: string;
  environment: "production" | "development";
  appName: string;
  cookies: { secure: boolean; name: string; domain: string | null; sameSite: "Lax" | "Strict" | "None" };
  email: {
    from: string;
    templates: EmailTemplates;
    perRecipient: ResolvedRule | false;
    recipientCap: ResolvedRule | false;
    resendCooldownMs: number | null;
  };
  trustedOrigins: string[];
  session: { expiresInMs: number; updateAgeMs: number; shortExpiresInMs: number; freshAgeMs: number | null };
  emailPassword: {
    allowUsernameChange: boolean;
    requireUsername: boolean;
    minPasswordLength: number;
    maxPasswordLength: number;
    /** `passwordPolicy.check`, or null. */
    passwordCheck: PasswordCheck | null;
    passwordReset: { expiresInMs: number; callbackPath: string; callbackUrlOverride: string | null };
  };
  emailVerification: {
    expiresInMs: number;
    callbackPath: string;
    requireVerifiedForSignIn: boolean;
    callbackUrlOverride: string | null;
    deleteUnverifiedAfterMs: number | null;
  };
  deleteAccount: { expiresInMs: number; callbackPath: string; subject: string; callbackUrlOverride: string | null };
  rateLimit: {
    enabled: boolean;
    global: ResolvedRule;
    rules: Record<string, ResolvedRule | false>;
    ipless: "shared" | "skip" | null;
  };
  lockout: {
    enabled: boolean;
    maxFailures: number;
    windowMs: number;
    durationMs: number;
    /** Wrong emailed codes per account per 24 hours, across lock cycles; false for no daily ceiling. */
    codeFailuresPerDay: number | false;
  };
  passwordHashing: { concurrency: number; maxQueue: number; unauthenticatedBudget: ResolvedRule | false };
  deviceCookies: { enabled: boolean; expiresInMs: number; name: string };
  captureOtp: boolean;
}

/** Checks one rate-limit rule; `field` names it in the error (`rateLimit.rules["/sign-in/email"]`). */
export function resolveRateLimitRule(r: RateLimitRule, field: string): ResolvedRule {
  if (!Number.isInteger(r.max) || r.max < 1) throw new AuthConfigError(`${field}.max`, "must be a positive integer");
  const resolved: ResolvedRule = { windowMs: parseDuration(r.window, `${field}.window`), max: r.max };
  if (r.networkMax === undefined) return resolved;
  if (!Number.isInteger(r.networkMax) || r.networkMax < r.max)
    throw new AuthConfigError(`${field}.networkMax`, "must be an integer at least `max`");
  return { ...resolved, networkMax: r.networkMax };
}
