import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { EACH, rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";
import type { CounterStore, Store } from "../ports/store.ts";
import type { Clock, Random } from "../ports/clock.ts";
import { defaultHashConcurrency, type PasswordHasher } from "../password/argon2.ts";
import type { PasswordCheck } from "../password/policy.ts";
import type { EmailSender, EmailTemplates } from "../email/email.ts";
import type { AuthPlugin } from "../kernel/plugin.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../kernel/config.ts";
import type { Logger } from "../logger/logger.ts";
import { originOf } from "../config/origin.ts";
import { HOOK_OPTION_SHAPE, type AuthHooks } from "../hooks/hooks.ts";
import { CACHE_OPTION_SHAPE, type CacheOptions } from "../cache/options.ts";

/** Everything `createAuth` accepts (hono-adapter adds HTTP-only options such as `getClientIp`). */
export interface AuthOptions<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> {
  /** At least 32 characters; derives the JWT key-encryption key. `latchkey secret` prints one. */
  secret: string;
  database: Store;
  /**
   * Where rate-limit and lockout counters live. Default: the database's own counters. (An API key's own
   * rate-limit window and quota live on its row in the database, whatever this says.)
   * `redisCounters({ url })` from `@latchkey/redis-store` moves these hot writes to Redis or Valkey.
   */
  counters?: CounterStore;
  /** Application base URL: callback links, JWT issuer/audience defaults, trusted origin. Required in production. */
  baseUrl?: string;
  /** Prefix of the standalone handler (`auth.handler`); the sub-app itself is unprefixed. Default "/auth". */
  basePath?: string;
  /** "production" (default) refuses insecure cookies; "development" allows them and prints emails in full. */
  environment?: "production" | "development";
  /** Shown in emails. Default "Latchkey". */
  appName?: string;
  /** `sameSite: "None"` (needs `secure`) is for a front end on another site than the API; see docs/client.md. */
  cookies?: { secure?: boolean; domain?: string; sameSite?: "Lax" | "Strict" | "None" };
  email?: {
    sender?: EmailSender;
    from?: string;
    templates?: EmailTemplates;
    /**
     * Emails one address may receive across every sending flow (codes, reset and verification links, email
     * change, account deletion), whoever asks. Default 5 per 15 minutes; `false` for none. Past it a send answers
     * as usual but issues and sends nothing.
     */
    perRecipient?: RateLimitRule | false;
    /** Least time between two sends of the same purpose to one address. Default 60 s; `false` for none. */
    resendCooldown?: Duration | false;
  };
  trustedOrigins?: string[];
  session?: {
    expiresIn?: Duration;
    updateAge?: Duration;
    /** Lifetime of a `rememberMe: false` sign-in (never slides past it; browser-session cookie). Default "1d". */
    shortExpiresIn?: Duration;
    /**
     * Sessions older than this (from their creation) are refused with 403 `SESSION_NOT_FRESH` at the sensitive
     * endpoints (change/set password, deletion, email change, API-key creation). Default "1d"; `null` turns it off.
     */
    freshAge?: Duration | null;
  };
  emailPassword?: {
    allowUsernameChange?: boolean;
    requireUsername?: boolean;
    /** Old name of `passwordPolicy.minLength` (still accepted). */
    minPasswordLength?: number;
    /** Old name of `passwordPolicy.maxLength` (still accepted). */
    maxPasswordLength?: number;
    /**
     * Rules for every new password (sign-up, change, both resets, set-password): `minLength` (default 8),
     * `maxLength` (default 128), and `check(password, user)`, an app's own rule or `pwnedPasswords()`.
     */
    passwordPolicy?: { minLength?: number; maxLength?: number; check?: PasswordCheck };
    passwordReset?: { expiresIn?: Duration; callbackPath?: string; callbackUrlOverride?: string };
  };
  emailVerification?: {
    expiresIn?: Duration;
    callbackPath?: string;
    requireVerifiedForSignIn?: boolean;
    callbackUrlOverride?: string;
    /**
     * The sweep (`auth.api.sweep()`) deletes users whose email is still unverified this long after sign-up, with
     * every row of theirs. Default: never.
     */
    deleteUnverifiedAfter?: Duration;
  };
  deleteAccount?: { expiresIn?: Duration; callbackPath?: string; subject?: string; callbackUrlOverride?: string };
  rateLimit?: {
    enabled?: boolean;
    window?: Duration;
    max?: number;
    rules?: Record<string, RateLimitRule | false>;
    /**
     * Requests whose client address is unknown (`getClientIp` answered null): `"shared"` counts them all in one
     * budget per rule, `"skip"` applies no per-IP rule to them (lockouts still apply). Unset, production refuses
     * such requests (500, logged) and development warns once and shares one budget.
     */
    ipless?: "shared" | "skip";
  };
  lockout?: { enabled?: boolean; maxFailures?: number; window?: Duration; duration?: Duration };
  /**
   * Bounds on password hashing, the one CPU- and memory-heavy step anonymous callers can trigger. `concurrency`
   * hashes run at once (default: the native engine's thread pool, `UV_THREADPOOL_SIZE` or 4, at most the CPUs;
   * 1 on the portable engine), `maxQueue` (default 32) wait, and the next answers 503 `BUSY` with `Retry-After`.
   * `unauthenticatedBudget` (default 1200 a minute, `false` for none) is one budget shared by every caller (not per
   * IP) for the routes that hash without a session and without a secret to check first: sign-up and password
   * sign-in (resets look their token or code up before hashing).
   */
  passwordHashing?: { concurrency?: number; maxQueue?: number; unauthenticatedBudget?: RateLimitRule | false };
  /** App code that may refuse (or amend) a sign-up and refuse a sign-in; see docs/hooks.md. */
  hooks?: AuthHooks;
  /** Features to switch on; their `api` methods type `auth.api`. Each plugin's store ports must exist on `database`. */
  plugins?: P;
  /** Tests only: keep plaintext codes in memory for `auth.getOtp(identifier)`. */
  captureOtp?: boolean;
  /** Injected for tests; defaults to the system clock and Web Crypto. */
  clock?: Clock;
  random?: Random;
  /** Default: argon2id m=19456 KiB, t=2, p=1 (native where it loads, else @noble/hashes). */
  passwordHasher?: PasswordHasher;
  /** Where every line Latchkey writes goes: a pino-style logger (`error(fields, message)`). Default: the console. */
  logger?: Logger;
  /**
   * Off by default. An in-process cache of session lookups and API-key reads; every revocation reaches every
   * instance through the store's carrier (PostgreSQL `LISTEN/NOTIFY`, Redis pub/sub, in-process). See docs/cache.md.
   */
  cache?: CacheOptions;
}

const TEMPLATE_PARTS = ["subject", "txt", "html"] as const;
const TEMPLATE_FAMILIES = [
  "verification",
  "password-reset",
  "existing-account",
  "otp",
  "otp-sign-in",
  "otp-email-verification",
  "otp-password-reset",
  "otp-email-change",
  "email-changed",
];
/** Names `email.templates` accepts (the deletion subject is the option `deleteAccount.subject`). */
export const EMAIL_TEMPLATE_NAMES: readonly string[] = [
  ...TEMPLATE_FAMILIES.flatMap((family) => TEMPLATE_PARTS.map((part) => `${family}.${part}`)),
  "delete-account.txt",
  "delete-account.html",
];

/**
 * Every key `createAuth` accepts from core (hono-adapter adds its HTTP options); anything else is an
 * `AuthConfigError` naming the nearest valid key. A new option is one line here plus its validation below.
 */
export const AUTH_OPTION_SHAPE: OptionShape = {
  secret: true,
  database: true,
  counters: true,
  baseUrl: true,
  basePath: true,
  environment: true,
  appName: true,
  cookies: { secure: true, domain: true, sameSite: true },
  email: {
    sender: true,
    from: true,
    templates: Object.fromEntries(EMAIL_TEMPLATE_NAMES.map((name) => [name, true as const])),
    perRecipient: { window: true, max: true },
    resendCooldown: true,
  },
  trustedOrigins: true,
  session: { expiresIn: true, updateAge: true, shortExpiresIn: true, freshAge: true },
  emailPassword: {
    allowUsernameChange: true,
    requireUsername: true,
    minPasswordLength: true,
    maxPasswordLength: true,
    passwordPolicy: { minLength: true, maxLength: true, check: true },
    passwordReset: { expiresIn: true, callbackPath: true, callbackUrlOverride: true },
  },
  emailVerification: {
    expiresIn: true,
    callbackPath: true,
    requireVerifiedForSignIn: true,
    callbackUrlOverride: true,
    deleteUnverifiedAfter: true,
  },
  deleteAccount: { expiresIn: true, callbackPath: true, subject: true, callbackUrlOverride: true },
  rateLimit: { enabled: true, window: true, max: true, rules: { [EACH]: { window: true, max: true } }, ipless: true },
  lockout: { enabled: true, maxFailures: true, window: true, duration: true },
  passwordHashing: { concurrency: true, maxQueue: true, unauthenticatedBudget: { window: true, max: true } },
  hooks: HOOK_OPTION_SHAPE,
  plugins: true,
  captureOtp: true,
  clock: true,
  random: true,
  passwordHasher: true,
  logger: true,
  cache: CACHE_OPTION_SHAPE,
};

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

function path(value: string | undefined, fallback: string, field: string): string {
  const v = value ?? fallback;
  if (!v.startsWith("/") || v.startsWith("//") || v.includes("\\"))
    throw new AuthConfigError(field, "must be a path starting with a single /");
  return v;
}

/**
 * Validates options and fills defaults. Throws `AuthConfigError` naming the first bad field, including keys
 * that are not options (`adapterOptions`: the keys a transport adds, e.g. hono-adapter's `getClientIp`).
 */
export function resolveConfig(options: AuthOptions, adapterOptions: OptionShape = {}): ResolvedConfig {
  if (options === null || typeof options !== "object") throw new AuthConfigError("options", "must be an object");
  rejectUnknownOptions(options, { ...AUTH_OPTION_SHAPE, ...adapterOptions }, "");
  if (typeof options.secret !== "string" || options.secret.length < 32)
    throw new AuthConfigError("secret", "must be a string of at least 32 characters (run `latchkey secret`)");
  if (!options.database || typeof options.database !== "object" || !("users" in options.database))
    throw new AuthConfigError("database", "must be a store: memoryStore(), drizzleStore(...) or mongoStore(...)");
  if (
    options.counters !== undefined &&
    (options.counters === null || typeof options.counters !== "object" || typeof options.counters.hit !== "function")
  ) {
    throw new AuthConfigError("counters", "must be a counter store, e.g. redisCounters({ url })");
  }
  const environment = options.environment ?? "production";
  if (environment !== "production" && environment !== "development")
    throw new AuthConfigError("environment", 'must be "production" or "development"');
  if (environment === "production" && options.baseUrl === undefined)
    throw new AuthConfigError(
      "baseUrl",
      "is required in production (callback links and CSRF origins are built from it)",
    );
  const baseUrlText = options.baseUrl ?? "http://localhost:3000";
  let baseUrl: URL;
  try {
    baseUrl = new URL(baseUrlText);
  } catch {
    throw new AuthConfigError("baseUrl", "must be an absolute URL");
  }
  const secure = options.cookies?.secure ?? true;
  if (options.cookies?.sameSite === "None" && !secure)
    throw new AuthConfigError(
      "cookies.sameSite",
      '"None" needs secure cookies (browsers drop SameSite=None cookies without Secure)',
    );
  if (environment === "production" && !secure)
    throw new AuthConfigError(
      "cookies.secure",
      'cannot be false in production (set environment: "development" for local HTTP)',
    );
  const basePath = options.basePath ?? "/auth";
  if (basePath !== "" && (!basePath.startsWith("/") || basePath.endsWith("/")))
    throw new AuthConfigError("basePath", 'must start with "/" and not end with "/" (or be "")');
  // Never the opaque "null": every non-http(s) URL has that origin, so trusting one would trust them all.
  const trustedOrigins = (options.trustedOrigins ?? []).map((o, i) => {
    const origin = typeof o === "string" ? originOf(o) : null;
    if (origin === null)
      throw new AuthConfigError(
        `trustedOrigins[${i}]`,
        "must be an absolute URL with a host (https://app.example, or an app scheme such as capacitor://localhost)",
      );
    return origin;
  });
  const ipless = options.rateLimit?.ipless ?? null;
  if (ipless !== null && ipless !== "shared" && ipless !== "skip")
    throw new AuthConfigError("rateLimit.ipless", 'must be "shared" or "skip"');
  const ep = options.emailPassword;
  const policy = ep?.passwordPolicy;
  // The old names keep working; setting a length under both names is ambiguous, so it is refused.
  if (ep?.minPasswordLength !== undefined && policy?.minLength !== undefined)
    throw new AuthConfigError(
      "emailPassword.passwordPolicy.minLength",
      "and emailPassword.minPasswordLength are the same option: set one",
    );
  if (ep?.maxPasswordLength !== undefined && policy?.maxLength !== undefined)
    throw new AuthConfigError(
      "emailPassword.passwordPolicy.maxLength",
      "and emailPassword.maxPasswordLength are the same option: set one",
    );
  const minField =
    policy?.minLength !== undefined ? "emailPassword.passwordPolicy.minLength" : "emailPassword.minPasswordLength";
  const maxField =
    policy?.maxLength !== undefined ? "emailPassword.passwordPolicy.maxLength" : "emailPassword.maxPasswordLength";
  const minPasswordLength = policy?.minLength ?? ep?.minPasswordLength ?? 8;
  const maxPasswordLength = policy?.maxLength ?? ep?.maxPasswordLength ?? 128;
  if (!Number.isInteger(minPasswordLength) || minPasswordLength < 1)
    throw new AuthConfigError(minField, "must be a positive integer");
  if (!Number.isInteger(maxPasswordLength) || maxPasswordLength < minPasswordLength || maxPasswordLength > 1024)
    throw new AuthConfigError(maxField, "must be an integer between the minimum length and 1024");
  if (policy?.check !== undefined && typeof policy.check !== "function")
    throw new AuthConfigError("emailPassword.passwordPolicy.check", "must be a function, e.g. pwnedPasswords()");
  // Only the overrides: each route declares its own default rule, and the limiter merges the two when the
  // adapter registers the route (`RateLimiter.register`).
  const rules: Record<string, ResolvedRule | false> = {};
  for (const [p, r] of Object.entries(options.rateLimit?.rules ?? {}))
    rules[p] = r === false ? false : resolveRateLimitRule(r, `rateLimit.rules["${p}"]`);
  const maxFailures = options.lockout?.maxFailures ?? 5;
  if (!Number.isInteger(maxFailures) || maxFailures < 1)
    throw new AuthConfigError("lockout.maxFailures", "must be a positive integer");
  const sessionExpires = parseDuration(options.session?.expiresIn ?? "7d", "session.expiresIn");
  const updateAge = parseDuration(options.session?.updateAge ?? "1d", "session.updateAge");
  if (updateAge > sessionExpires) throw new AuthConfigError("session.updateAge", "must not exceed session.expiresIn");
  const shortExpires = parseDuration(options.session?.shortExpiresIn ?? "1d", "session.shortExpiresIn");
  const freshAge =
    options.session?.freshAge === null ? null : parseDuration(options.session?.freshAge ?? "1d", "session.freshAge");
  const subject = options.deleteAccount?.subject ?? "Confirm account deletion";
  if (typeof subject !== "string" || subject.length === 0)
    throw new AuthConfigError("deleteAccount.subject", "must be a non-empty string");

  return {
    secret: options.secret,
    baseUrl: baseUrl.toString().replace(/\/$/, ""),
    baseOrigin: baseUrl.origin,
    basePath,
    environment,
    appName: options.appName ?? "Latchkey",
    cookies: {
      secure,
      // `__Host-` binds the cookie to this host (Secure, Path=/, no Domain): a sibling subdomain cannot set or
      // shadow it. A configured domain needs `__Secure-`, which allows Domain.
      name: !secure
        ? "latchkey.session"
        : options.cookies?.domain
          ? "__Secure-latchkey.session"
          : "__Host-latchkey.session",
      domain: options.cookies?.domain ?? null,
      sameSite: options.cookies?.sameSite ?? "Lax",
    },
    email: {
      from: options.email?.from ?? `no-reply@${baseUrl.hostname}`,
      templates: options.email?.templates ?? {},
      perRecipient:
        options.email?.perRecipient === false
          ? false
          : resolveRateLimitRule(options.email?.perRecipient ?? { window: "15m", max: 5 }, "email.perRecipient"),
      resendCooldownMs:
        options.email?.resendCooldown === false
          ? null
          : parseDuration(options.email?.resendCooldown ?? "60s", "email.resendCooldown"),
    },
    trustedOrigins: [baseUrl.origin, ...trustedOrigins],
    session: {
      expiresInMs: sessionExpires,
      updateAgeMs: updateAge,
      // Never longer than a remembered session.
      shortExpiresInMs: Math.min(shortExpires, sessionExpires),
      freshAgeMs: freshAge,
    },
    emailPassword: {
      allowUsernameChange: options.emailPassword?.allowUsernameChange ?? false,
      requireUsername: options.emailPassword?.requireUsername ?? false,
      minPasswordLength,
      maxPasswordLength,
      passwordCheck: policy?.check ?? null,
      passwordReset: {
        expiresInMs: parseDuration(
          options.emailPassword?.passwordReset?.expiresIn ?? "1h",
          "emailPassword.passwordReset.expiresIn",
        ),
        callbackPath: path(
          options.emailPassword?.passwordReset?.callbackPath,
          "/reset-password",
          "emailPassword.passwordReset.callbackPath",
        ),
        callbackUrlOverride: callbackOverride(
          options.emailPassword?.passwordReset?.callbackUrlOverride,
          "emailPassword.passwordReset.callbackUrlOverride",
          baseUrl.origin,
        ),
      },
    },
    emailVerification: {
      expiresInMs: parseDuration(options.emailVerification?.expiresIn ?? "1d", "emailVerification.expiresIn"),
      callbackPath: path(options.emailVerification?.callbackPath, "/verify-email", "emailVerification.callbackPath"),
      requireVerifiedForSignIn: options.emailVerification?.requireVerifiedForSignIn ?? false,
      callbackUrlOverride: callbackOverride(
        options.emailVerification?.callbackUrlOverride,
        "emailVerification.callbackUrlOverride",
        baseUrl.origin,
      ),
      deleteUnverifiedAfterMs:
        options.emailVerification?.deleteUnverifiedAfter === undefined
          ? null
          : parseDuration(options.emailVerification.deleteUnverifiedAfter, "emailVerification.deleteUnverifiedAfter"),
    },
    deleteAccount: {
      expiresInMs: parseDuration(options.deleteAccount?.expiresIn ?? "1h", "deleteAccount.expiresIn"),
      callbackPath: path(options.deleteAccount?.callbackPath, "/delete-account/confirm", "deleteAccount.callbackPath"),
      subject,
      callbackUrlOverride: callbackOverride(
        options.deleteAccount?.callbackUrlOverride,
        "deleteAccount.callbackUrlOverride",
        baseUrl.origin,
      ),
    },
    rateLimit: {
      enabled: options.rateLimit?.enabled ?? true,
      global: resolveRateLimitRule(
        { window: options.rateLimit?.window ?? "10s", max: options.rateLimit?.max ?? 100 },
        "rateLimit",
      ),
      rules,
      ipless,
    },
    lockout: {
      enabled: options.lockout?.enabled ?? true,
      maxFailures,
      windowMs: parseDuration(options.lockout?.window ?? "15m", "lockout.window"),
      durationMs: parseDuration(options.lockout?.duration ?? "15m", "lockout.duration"),
    },
    passwordHashing: resolvePasswordHashing(options.passwordHashing),
    captureOtp: options.captureOtp ?? false,
  };
}

function resolvePasswordHashing(options: AuthOptions["passwordHashing"]): ResolvedConfig["passwordHashing"] {
  const concurrency = options?.concurrency ?? defaultHashConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)
    throw new AuthConfigError("passwordHashing.concurrency", "must be an integer from 1 to 1024");
  const maxQueue = options?.maxQueue ?? 32;
  if (!Number.isInteger(maxQueue) || maxQueue < 0 || maxQueue > 100_000)
    throw new AuthConfigError("passwordHashing.maxQueue", "must be an integer from 0 to 100000");
  const budget = options?.unauthenticatedBudget ?? { window: "1m", max: 1200 };
  return {
    concurrency,
    maxQueue,
    unauthenticatedBudget:
      budget === false ? false : resolveRateLimitRule(budget, "passwordHashing.unauthenticatedBudget"),
  };
}
