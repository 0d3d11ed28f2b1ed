import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import type { OptionShape } from "../config/closed-options.ts";
import { applySchema, defaulted, group, optional, required, shapeOf, type InputOf } from "../config/schema.ts";
import type { CounterStore, Store } from "../ports/store.ts";
import type { Clock, Random } from "../ports/clock.ts";
import { defaultHashConcurrency, type PasswordHasher } from "../password/argon2.ts";
import { withCheckContext, type PasswordCheck } from "../password/policy.ts";
import type { EmailSender, EmailTemplates } from "../email/email.ts";
import type { AuthPlugin } from "../context/plugin.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../kernel/config.ts";
import { resolveLogger, type Logger } from "../logger/logger.ts";
import { originOf } from "../config/origin.ts";
import { HOOKS_SCHEMA } from "../hooks/hooks.ts";
import { CACHE_SCHEMA, type CacheOptions } from "../cache/options.ts";

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
  "magic-link",
];
/** Names `email.templates` accepts (the deletion subject is the option `deleteAccount.subject`). */
export const EMAIL_TEMPLATE_NAMES: readonly string[] = [
  ...TEMPLATE_FAMILIES.flatMap((family) => TEMPLATE_PARTS.map((part) => `${family}.${part}`)),
  "delete-account.txt",
  "delete-account.html",
];

const isDuration = (value: Duration, field: string) => void parseDuration(value, field);
const integerIn = (min: number, max: number, message: string) => (value: number, field: string) => {
  if (!Number.isInteger(value) || value < min || value > max) throw new AuthConfigError(field, message);
};

/** A rate-limit rule as an option (`RateLimitRule`): both keys required. */
const RATE_LIMIT_RULE_SCHEMA = {
  /** the rule's window: both `window` and `max` required */
  window: required<Duration>(),
  /** requests (or sends) allowed per `window` */
  max: required<number>(),
};

/** A per-IP rule (`rateLimit.rules[path]`): a rule plus its enclosing network's budget. */
const ROUTE_RULE_SCHEMA = {
  /** the rule's window: both `window` and `max` required */
  window: required<Duration>(),
  /** requests allowed per `window` from one address (IPv4 address, IPv6 /64) */
  max: required<number>(),
  /**
   * what one enclosing network (IPv4 /24, IPv6 /48) may spend per `window`, all its addresses together
   * @defaultValue 6 × `max`
   */
  networkMax: optional<number>(),
};

const isPath = (value: string, field: string) => {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\"))
    throw new AuthConfigError(field, "must be a path starting with a single /");
};

const PASSWORD_POLICY_SCHEMA = {
  /** never truncated; 400 `PASSWORD_TOO_SHORT` */
  minLength: defaulted<number>(8),
  /** never truncated; 400 `PASSWORD_TOO_LONG`; at most 1024 */
  maxLength: defaulted<number>(128),
  /**
   * `async (password, user)` for every new password (sign-up, change, both resets, set-password): a returned
   * message refuses with 400 `WEAK_PASSWORD` and that message. `pwnedPasswords({ endpoint, timeout, onUnavailable })`
   * is a ready one: 400 `PASSWORD_COMPROMISED` for a password seen in breaches (see docs/security.md)
   */
  check: optional<PasswordCheck>({
    check: (v, field) => {
      if (typeof v !== "function") throw new AuthConfigError(field, "must be a function, e.g. pwnedPasswords()");
    },
  }),
};

const EMAIL_PASSWORD_SCHEMA = {
  /** lets `PATCH /user` change `username` (else 403 `USERNAME_CHANGE_DISABLED`); `auth.api.updateUser` always may */
  allowUsernameChange: defaulted<boolean>(false),
  /** interactive sign-up only; `auth.api.createUser` keeps it optional */
  requireUsername: defaulted<boolean>(false),
  /**
   * old name of `passwordPolicy.minLength`, still accepted (setting a length under both names is an error)
   * @defaultValue `8`
   */
  minPasswordLength: optional<number>(),
  /**
   * old name of `passwordPolicy.maxLength`, still accepted (setting a length under both names is an error)
   * @defaultValue `128`
   */
  maxPasswordLength: optional<number>(),
  passwordPolicy: group(PASSWORD_POLICY_SCHEMA),
  passwordReset: group({
    /** reset-link lifetime */
    expiresIn: defaulted<Duration>("1h", { check: isDuration }),
    /** the link is `baseUrl + callbackPath + ?token=` */
    callbackPath: defaulted<string>("/reset-password", { check: isPath }),
    /** absolute URL on another origin (same origin: use `callbackPath`) */
    callbackUrlOverride: optional<string>(),
  }),
};

const EMAIL_VERIFICATION_SCHEMA = {
  /** lifetime of a verification link token */
  expiresIn: defaulted<Duration>("1d", { check: isDuration }),
  /**
   * the link is `baseUrl + callbackPath + ?token=&email=` (a page of your app that POSTs to `/auth/verify-email`)
   */
  callbackPath: defaulted<string>("/verify-email", { check: isPath }),
  /**
   * sign-up then issues no session and answers `{success: true}` for new and existing emails; unverified password
   * sign-in is 403 `EMAIL_NOT_VERIFIED`
   */
  requireVerifiedForSignIn: defaulted<boolean>(false),
  /** absolute URL on another origin (same origin: use `callbackPath`) */
  callbackUrlOverride: optional<string>(),
  /**
   * the sweep (`auth.api.sweep()`) deletes users still unverified this long after sign-up, with every row of theirs
   * (`AccountDeleted` is emitted)
   * @defaultValue none (kept)
   */
  deleteUnverifiedAfter: optional<Duration>({ check: isDuration }),
};

const DELETE_ACCOUNT_SCHEMA = {
  /** lifetime of a deletion token */
  expiresIn: defaulted<Duration>("1h", { check: isDuration }),
  /**
   * the link is `baseUrl + callbackPath + ?token=` (a page of your app that POSTs to `/auth/delete-account/confirm`)
   */
  callbackPath: defaulted<string>("/delete-account/confirm", { check: isPath }),
  /** subject of the deletion email; may use `{{appName}}` and the template variables */
  subject: defaulted<string>("Confirm account deletion", {
    check: (v, field) => {
      if (typeof v !== "string" || v.length === 0) throw new AuthConfigError(field, "must be a non-empty string");
    },
  }),
  /** absolute URL on another origin */
  callbackUrlOverride: optional<string>(),
};

const SESSION_SCHEMA = {
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

const EMAIL_SCHEMA = {
  /**
   * any `{ send(message) }`; `resendEmailSender()` from `@latchkey/resend-sender`; see docs/email.md
   * @defaultValue console
   */
  sender: optional<EmailSender>(),
  /**
   * the sender address of every email
   * @defaultValue `no-reply@<baseUrl host>`
   */
  from: optional<string>(),
  /**
   * override a template by name: `verification.*`, `password-reset.*`, `existing-account.*`, `otp.*`,
   * `otp-<purpose>.*` (parts `subject`, `txt`, `html`) and `delete-account.txt`/`.html`; another name is an
   * error; names and variables in docs/email.md
   * @defaultValue built in
   */
  templates: defaulted<EmailTemplates>({}, { names: EMAIL_TEMPLATE_NAMES }),
  /**
   * emails one address may receive across every sending flow (codes, reset and verification links, email change,
   * account deletion) at the request of one network (IPv4 /24, IPv6 /48), or of the account's own known devices
   * and sessions (an allowance of their own); past it a send is 429 `RATE_LIMITED` and issues and sends nothing
   * (the code already sent stays valid); `false` for none. See docs/email.md, "Send limits"
   */
  perRecipient: defaulted<RateLimitRule | false>({ window: "15m", max: 5 }, { fields: RATE_LIMIT_RULE_SCHEMA }),
  /**
   * emails one address may receive from every network together (the account's known devices and sessions are not
   * counted and never refused); past it a send is 429 `RATE_LIMITED`; `false` for none. See docs/email.md, "Send
   * limits"
   */
  recipientCap: defaulted<RateLimitRule | false>({ window: "1h", max: 30 }, { fields: RATE_LIMIT_RULE_SCHEMA }),
  /**
   * least time between two sends of the same purpose to one address at the request of one network (or of the
   * account's known devices); a send inside it is 429 `RATE_LIMITED` and sends nothing; `false` for none
   */
  resendCooldown: defaulted<Duration | false>("60s", {
    check: (v, field) => (v === false ? undefined : isDuration(v, field)),
  }),
};

const RATE_LIMIT_SCHEMA = {
  /** `false` turns every per-IP rule off */
  enabled: defaulted<boolean>(true),
  /** window of the global rule: per IP and path, for state-changing requests */
  window: defaulted<Duration>("10s", { check: isDuration }),
  /** requests per `window` of the global rule, per IP (IPv4 address, IPv6 /64) */
  max: defaulted<number>(100),
  /** requests per `window` of the global rule from one enclosing network (IPv4 /24, IPv6 /48), all its addresses together */
  networkMax: defaulted<number>(600),
  /**
   * per IP and path (relative to the mount), each also counted per enclosing network (`networkMax`); `false` turns a
   * rule off
   * @defaultValue see "Default per-IP rules" below
   */
  rules: optional<Record<string, RateLimitRule | false>>({ each: ROUTE_RULE_SCHEMA }),
  /**
   * requests whose client address `getClientIp` cannot find: `"shared"` counts them all in one budget per rule,
   * `"skip"` applies no per-IP rule to them (lockouts still do). Unset, production answers them 500 and logs how to
   * configure `getClientIp`; development warns once and shares one budget
   * @defaultValue unset
   */
  ipless: optional<"shared" | "skip">({
    check: (v, field) => {
      if (v !== null && v !== "shared" && v !== "skip") throw new AuthConfigError(field, 'must be "shared" or "skip"');
    },
  }),
};

const LOCKOUT_SCHEMA = {
  /** `false` turns the account lockout off */
  enabled: defaulted<boolean>(true),
  /**
   * failed password checks before the account locks (keyed by the user id once the email or username resolves;
   * checks are counted before they run)
   */
  maxFailures: defaulted<number>(5, { check: integerIn(1, Number.POSITIVE_INFINITY, "must be a positive integer") }),
  /** the window the failures are counted in */
  window: defaulted<Duration>("15m", { check: isDuration }),
  /** how long a locked account stays locked */
  duration: defaulted<Duration>("15m", { check: isDuration }),
  /**
   * wrong emailed codes (sign-in, verification, reset, email change) one account may have per 24 hours, across lock
   * cycles: at the ceiling codes are refused (429 `ACCOUNT_LOCKED`) until the day's window ends; the password, known
   * devices and links still work. `false` for none. See docs/security.md, "Limits under abuse"
   */
  codeFailuresPerDay: defaulted<number | false>(20, {
    check: (v, field) =>
      v === false ? undefined : integerIn(1, 1_000_000, "must be a positive integer or false")(v, field),
  }),
};

const PASSWORD_HASHING_SCHEMA = {
  /**
   * password hashes computed at once, in this process (every hash and verify, trusted calls included)
   * @defaultValue native engine: `UV_THREADPOOL_SIZE` or `4`, at most the CPUs available; portable engine: `1`
   */
  concurrency: defaulted<number>(defaultHashConcurrency, {
    check: integerIn(1, 1024, "must be an integer from 1 to 1024"),
  }),
  /** hashes that may wait for a slot; the next answers 503 `BUSY` with `Retry-After: 1` */
  maxQueue: defaulted<number>(32, { check: integerIn(0, 100_000, "must be an integer from 0 to 100000") }),
  /**
   * opt-in last-resort circuit breaker: one budget shared by every caller (not per IP, and across instances: a
   * counter) for `/sign-up/email` and `/sign-in/email`; past it they answer 503 `BUSY` with `Retry-After`. Anyone can
   * spend it for everyone, so it is off by default; a sign-in with a valid device cookie never spends it nor meets it
   * (see docs/security.md, "Limits under abuse")
   * @defaultValue none
   */
  unauthenticatedBudget: optional<RateLimitRule | false>({ fields: RATE_LIMIT_RULE_SCHEMA }),
};

const DEVICE_COOKIES_SCHEMA = {
  /**
   * a successful sign-in sets a signed, HttpOnly device cookie bound to the account (rotated on every use, revoked
   * by a password change or reset); a password sign-in presenting it for the account it names skips the per-IP and
   * per-network rules and has a lockout of its own. `false` turns device cookies off
   */
  enabled: defaulted<boolean>(true),
  /** lifetime of a device cookie (each use rotates it and starts this lifetime again) */
  expiresIn: defaulted<Duration>("30d", { check: isDuration }),
};

/**
 * The one definition of everything `createAuth` accepts from core (hono-adapter adds its HTTP options): each
 * option's type, default, check and docs/options.md row. `AuthOptions`, `AUTH_OPTION_SHAPE` and the docs come
 * from it; cross-option rules are in `resolveConfig`.
 */
export const AUTH_SCHEMA = {
  /** at least 32 characters; `latchkey secret` prints 64. Derives the JWT key-encryption key. */
  secret: required<string>({
    check: (v, field) => {
      if (typeof v !== "string" || v.length < 32)
        throw new AuthConfigError(field, "must be a string of at least 32 characters (run `latchkey secret`)");
    },
  }),
  /**
   * `memoryStore()`, `drizzleStore(...)`, `mongoStore(...)`; PostgreSQL pool options (`connectTimeout`,
   * `queryTimeout`, `maxConnections`, `idleTimeout`) in docs/stores.md
   */
  database: required<Store>({
    check: (v, field) => {
      if (!v || typeof v !== "object" || !("users" in v))
        throw new AuthConfigError(field, "must be a store: memoryStore(), drizzleStore(...) or mongoStore(...)");
    },
  }),
  /**
   * where rate-limit and lockout counters live (an API key's own window and quota stay on its row in the
   * database): `redisCounters({ url })` from `@latchkey/redis-store` (docs/stores.md, "Running more than one
   * instance")
   * @defaultValue the database's
   */
  counters: optional<CounterStore>({
    check: (v, field) => {
      if (v === null || typeof v !== "object" || typeof v.hit !== "function")
        throw new AuthConfigError(field, "must be a counter store, e.g. redisCounters({ url })");
    },
  }),
  /**
   * application base URL: callback links, JWT `iss`/`aud` defaults, the first trusted origin
   * @defaultValue required in production; `http://localhost:3000` in development
   */
  baseUrl: optional<string>(),
  /** prefix of the standalone `auth.handler` only; `auth.app` is unprefixed */
  basePath: defaulted<string>("/auth", {
    check: (v, field) => {
      if (v !== "" && (!v.startsWith("/") || v.endsWith("/")))
        throw new AuthConfigError(field, 'must start with "/" and not end with "/" (or be "")');
    },
  }),
  /** `"development"` allows `cookies.secure: false` and prints emails in full on the console */
  environment: defaulted<"production" | "development">("production", {
    check: (v, field) => {
      if (v !== "production" && v !== "development")
        throw new AuthConfigError(field, 'must be "production" or "development"');
    },
  }),
  /** shown in emails */
  appName: defaulted<string>("Latchkey"),
  cookies: group({
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
  }),
  email: group(EMAIL_SCHEMA),
  /**
   * extra origins for CSRF and callback URLs (`baseUrl`'s origin is always trusted); an app scheme
   * (`capacitor://localhost`, `chrome-extension://<id>`) is compared by scheme and host exactly; a URL without a
   * host (`file:`) is refused
   */
  trustedOrigins: defaulted<string[]>([]),
  session: group(SESSION_SCHEMA),
  emailPassword: group(EMAIL_PASSWORD_SCHEMA),
  emailVerification: group(EMAIL_VERIFICATION_SCHEMA),
  deleteAccount: group(DELETE_ACCOUNT_SCHEMA),
  rateLimit: group(RATE_LIMIT_SCHEMA),
  lockout: group(LOCKOUT_SCHEMA),
  passwordHashing: group(PASSWORD_HASHING_SCHEMA),
  deviceCookies: group(DEVICE_COOKIES_SCHEMA),
  hooks: group(HOOKS_SCHEMA),
  /** `emailOtp()`, `apiKeys()`, `jwt()`, `auditLog()` (see docs/account.md); their `api` methods type `auth.api` */
  plugins: defaulted<readonly AuthPlugin[]>([]),
  /** tests only: `auth.getOtp(email)` returns the latest plaintext code or token */
  captureOtp: defaulted<boolean>(false),
  /**
   * injection point for tests
   * @defaultValue system clock
   */
  clock: optional<Clock>(),
  /**
   * injection point for tests
   * @defaultValue Web Crypto
   */
  random: optional<Random>(),
  /**
   * argon2id m=19456 KiB, t=2, p=1 (native where it loads, else the portable `@noble/hashes`)
   * @defaultValue argon2id
   */
  passwordHasher: optional<PasswordHasher>(),
  /**
   * a pino-style logger (`debug`/`info`/`warn`/`error`, fields first, then the message): every line
   * `createAuth` writes goes through it (the stores' own connection lines go to the console); see
   * [observability.md](observability.md)
   * @defaultValue the console
   */
  logger: optional<Logger>(),
  /**
   * an in-process cache of session lookups and API-key reads that every revocation reaches; see
   * [cache.md](cache.md)
   * @defaultValue off
   */
  cache: optional<CacheOptions>({ fields: CACHE_SCHEMA }),
};

/** Everything `createAuth` accepts (hono-adapter adds HTTP-only options such as `getClientIp`). */
export type AuthOptions<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> = InputOf<typeof AUTH_SCHEMA> & {
  plugins?: P;
};

/**
 * Every key `createAuth` accepts from core (from `AUTH_SCHEMA`; hono-adapter adds its HTTP options); anything
 * else is an `AuthConfigError` naming the nearest valid key.
 */
export const AUTH_OPTION_SHAPE: OptionShape = shapeOf(AUTH_SCHEMA);

type Filled = ReturnType<typeof applySchema<typeof AUTH_SCHEMA>>;

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

/** `baseUrl` (required in production) and the cookie rules that depend on `environment`. */
function resolveSite(o: Filled): Pick<ResolvedConfig, "baseUrl" | "baseOrigin" | "cookies"> & { url: URL } {
  if (o.environment === "production" && o.baseUrl === undefined)
    throw new AuthConfigError(
      "baseUrl",
      "is required in production (callback links and CSRF origins are built from it)",
    );
  let url: URL;
  try {
    url = new URL(o.baseUrl ?? "http://localhost:3000");
  } catch {
    throw new AuthConfigError("baseUrl", "must be an absolute URL");
  }
  const { secure, domain, sameSite } = o.cookies;
  if (sameSite === "None" && !secure)
    throw new AuthConfigError(
      "cookies.sameSite",
      '"None" needs secure cookies (browsers drop SameSite=None cookies without Secure)',
    );
  if (o.environment === "production" && !secure)
    throw new AuthConfigError(
      "cookies.secure",
      'cannot be false in production (set environment: "development" for local HTTP)',
    );
  return {
    url,
    baseUrl: url.toString().replace(/\/$/, ""),
    baseOrigin: url.origin,
    cookies: {
      secure,
      // `__Host-` binds the cookie to this host (Secure, Path=/, no Domain): a sibling subdomain cannot set or
      // shadow it. A configured domain needs `__Secure-`, which allows Domain.
      name: !secure ? "latchkey.session" : domain ? "__Secure-latchkey.session" : "__Host-latchkey.session",
      domain: domain ?? null,
      sameSite,
    },
  };
}

function resolveTrustedOrigins(origins: readonly unknown[], baseOrigin: string): string[] {
  // Never the opaque "null": every non-http(s) URL has that origin, so trusting one would trust them all.
  const trusted = origins.map((o, i) => {
    const origin = typeof o === "string" ? originOf(o) : null;
    if (origin === null)
      throw new AuthConfigError(
        `trustedOrigins[${i}]`,
        "must be an absolute URL with a host (https://app.example, or an app scheme such as capacitor://localhost)",
      );
    return origin;
  });
  return [baseOrigin, ...trusted];
}

/** The password lengths under their new or old names (setting one under both is ambiguous, so refused). */
function resolvePasswordLengths(raw: AuthOptions["emailPassword"], o: Filled["emailPassword"]) {
  const policy = raw?.passwordPolicy;
  for (const [name, old] of [
    ["minLength", "minPasswordLength"],
    ["maxLength", "maxPasswordLength"],
  ] as const) {
    if (raw?.[old] !== undefined && policy?.[name] !== undefined)
      throw new AuthConfigError(
        `emailPassword.passwordPolicy.${name}`,
        `and emailPassword.${old} are the same option: set one`,
      );
  }
  const minField =
    policy?.minLength !== undefined ? "emailPassword.passwordPolicy.minLength" : "emailPassword.minPasswordLength";
  const maxField =
    policy?.maxLength !== undefined ? "emailPassword.passwordPolicy.maxLength" : "emailPassword.maxPasswordLength";
  const minPasswordLength = policy?.minLength ?? o.minPasswordLength ?? o.passwordPolicy.minLength;
  const maxPasswordLength = policy?.maxLength ?? o.maxPasswordLength ?? o.passwordPolicy.maxLength;
  if (!Number.isInteger(minPasswordLength) || minPasswordLength < 1)
    throw new AuthConfigError(minField, "must be a positive integer");
  if (!Number.isInteger(maxPasswordLength) || maxPasswordLength < minPasswordLength || maxPasswordLength > 1024)
    throw new AuthConfigError(maxField, "must be an integer between the minimum length and 1024");
  return { minPasswordLength, maxPasswordLength };
}

function resolveSession(o: Filled["session"]): ResolvedConfig["session"] {
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

/** Every emailed link: its lifetime, where it points, and another origin it may point to instead. */
function resolveLinks(o: Filled, baseOrigin: string) {
  const link = (group: { expiresIn: Duration; callbackPath: string; callbackUrlOverride?: string }, at: string) => ({
    expiresInMs: parseDuration(group.expiresIn, `${at}.expiresIn`),
    callbackPath: group.callbackPath,
    callbackUrlOverride: callbackOverride(group.callbackUrlOverride, `${at}.callbackUrlOverride`, baseOrigin),
  });
  const verification = o.emailVerification;
  return {
    passwordReset: link(o.emailPassword.passwordReset, "emailPassword.passwordReset"),
    emailVerification: {
      ...link(verification, "emailVerification"),
      requireVerifiedForSignIn: verification.requireVerifiedForSignIn,
      deleteUnverifiedAfterMs:
        verification.deleteUnverifiedAfter === undefined
          ? null
          : parseDuration(verification.deleteUnverifiedAfter, "emailVerification.deleteUnverifiedAfter"),
    },
    deleteAccount: { ...link(o.deleteAccount, "deleteAccount"), subject: o.deleteAccount.subject },
  };
}

function resolveLimits(
  o: Filled,
  secure: boolean,
  domain: string | undefined,
): Pick<ResolvedConfig, "rateLimit" | "lockout" | "passwordHashing" | "deviceCookies"> {
  // Only the overrides: each route declares its own default rule, and the limiter merges the two when the
  // adapter registers the route (`RateLimiter.register`).
  const rules: Record<string, ResolvedRule | false> = {};
  for (const [p, r] of Object.entries(o.rateLimit.rules ?? {}))
    rules[p] = r === false ? false : resolveRateLimitRule(r, `rateLimit.rules["${p}"]`);
  const { concurrency, maxQueue, unauthenticatedBudget: budget } = o.passwordHashing;
  return {
    rateLimit: {
      enabled: o.rateLimit.enabled,
      global: resolveRateLimitRule(
        { window: o.rateLimit.window, max: o.rateLimit.max, networkMax: o.rateLimit.networkMax },
        "rateLimit",
      ),
      rules,
      ipless: o.rateLimit.ipless ?? null,
    },
    lockout: {
      enabled: o.lockout.enabled,
      maxFailures: o.lockout.maxFailures,
      windowMs: parseDuration(o.lockout.window, "lockout.window"),
      durationMs: parseDuration(o.lockout.duration, "lockout.duration"),
      codeFailuresPerDay: o.lockout.codeFailuresPerDay,
    },
    passwordHashing: {
      concurrency,
      maxQueue,
      unauthenticatedBudget:
        budget === undefined || budget === false
          ? false
          : resolveRateLimitRule(budget, "passwordHashing.unauthenticatedBudget"),
    },
    deviceCookies: {
      enabled: o.deviceCookies.enabled,
      expiresInMs: parseDuration(o.deviceCookies.expiresIn, "deviceCookies.expiresIn"),
      name: !secure ? "latchkey.device" : domain ? "__Secure-latchkey.device" : "__Host-latchkey.device",
    },
  };
}

/**
 * Validates options and fills defaults (both from `AUTH_SCHEMA`), then the rules between options. Throws
 * `AuthConfigError` naming the first bad field, including keys that are not options (`adapterOptions`: the keys a
 * transport adds, e.g. hono-adapter's `getClientIp`).
 */
export function resolveConfig(options: AuthOptions, adapterOptions: OptionShape = {}): ResolvedConfig {
  const o = applySchema(AUTH_SCHEMA, options, "", adapterOptions);
  const { url, ...site } = resolveSite(o);
  const { passwordReset, ...links } = resolveLinks(o, url.origin);
  const { perRecipient, recipientCap, resendCooldown } = o.email;
  return {
    secret: o.secret,
    ...site,
    basePath: o.basePath,
    environment: o.environment,
    appName: o.appName,
    email: {
      from: o.email.from ?? `no-reply@${url.hostname}`,
      templates: o.email.templates,
      perRecipient: perRecipient === false ? false : resolveRateLimitRule(perRecipient, "email.perRecipient"),
      recipientCap: recipientCap === false ? false : resolveRateLimitRule(recipientCap, "email.recipientCap"),
      resendCooldownMs: resendCooldown === false ? null : parseDuration(resendCooldown, "email.resendCooldown"),
    },
    trustedOrigins: resolveTrustedOrigins(o.trustedOrigins, url.origin),
    session: resolveSession(o.session),
    emailPassword: {
      allowUsernameChange: o.emailPassword.allowUsernameChange,
      requireUsername: o.emailPassword.requireUsername,
      ...resolvePasswordLengths(options.emailPassword, o.emailPassword),
      // Bound to the auth's logger here, so every service that runs it hands the check the same `logger`.
      passwordCheck: withCheckContext(o.emailPassword.passwordPolicy.check ?? null, resolveLogger(options.logger)),
      passwordReset,
    },
    ...links,
    ...resolveLimits(o, o.cookies.secure, o.cookies.domain),
    captureOtp: o.captureOtp,
  };
}
