import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import type { PasswordCheck } from "../password/policy.ts";
import type { EmailTemplates } from "../email/email.ts";

/** One rate-limit rule as an option: `{ window: "1m", max: 10 }`. */
export interface RateLimitRule {
  window: Duration;
  max: number;
}

export interface ResolvedRule {
  windowMs: number;
  max: number;
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
  lockout: { enabled: boolean; maxFailures: number; windowMs: number; durationMs: number };
  passwordHashing: { concurrency: number; maxQueue: number; unauthenticatedBudget: ResolvedRule | false };
  captureOtp: boolean;
}

/** Checks one rate-limit rule; `field` names it in the error (`rateLimit.rules["/sign-in/email"]`). */
export function resolveRateLimitRule(r: RateLimitRule, field: string): ResolvedRule {
  if (!Number.isInteger(r.max) || r.max < 1) throw new AuthConfigError(`${field}.max`, "must be a positive integer");
  return { windowMs: parseDuration(r.window, `${field}.window`), max: r.max };
}
