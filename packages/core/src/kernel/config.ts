import type { ResolvedRule } from "../config/rate-limit-rule.ts";
import type { PasswordCheck } from "../password/policy.ts";

export { resolveRateLimitRule } from "../config/rate-limit-rule.ts";
export type { RateLimitRule, ResolvedRule } from "../config/rate-limit-rule.ts";

/** Template name -> source text with `{{variable}}` placeholders. Names ending in `.html` escape their variables. */
export type EmailTemplates = Record<string, string>;

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
