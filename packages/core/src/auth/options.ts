import { AuthConfigError } from "../errors/errors.ts";
import type { OptionShape } from "../config/closed-options.ts";
import {
  applySchema,
  defaulted,
  group,
  optional,
  required,
  shapeOf,
  type InputOf,
  type OptionGroup,
} from "../config/schema.ts";
import { originOf } from "../config/origin.ts";
import type { CounterStore, Store } from "../ports/store.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { PasswordHasher } from "../password/argon2.ts";
import { PASSWORD_HASHING_SCHEMA, resolvePasswordHashing } from "../password/options.ts";
import type { AuthPlugin } from "../context/plugin.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import { resolveLogger, type Logger } from "../logger/logger.ts";
import { HOOKS_SCHEMA } from "../hooks/hooks.ts";
import { CACHE_SCHEMA, type CacheOptions } from "../cache/options.ts";
import { COOKIES_SCHEMA, resolveCookies, resolveSession, SESSION_SCHEMA } from "../session/options.ts";
import { EMAIL_SCHEMA, resolveEmail } from "../email/options.ts";
import { LOCKOUT_SCHEMA, RATE_LIMIT_SCHEMA, resolveLockout, resolveRateLimit } from "../rate-limit/options.ts";
import { DEVICE_COOKIES_SCHEMA, resolveDeviceCookies } from "../device/options.ts";
import { EMAIL_PASSWORD_SCHEMA, resolveEmailPassword, resolvePasswordResetLink } from "../email-password/index.ts";
import { EMAIL_VERIFICATION_SCHEMA, resolveEmailVerification } from "../email-verification/index.ts";
import { DELETE_ACCOUNT_SCHEMA, resolveDeleteAccount } from "../account/index.ts";

export { EMAIL_TEMPLATE_NAMES } from "../email/options.ts";

// Each group's schema, and the rules within it, live beside its feature; this file composes them into the one
// `createAuth` schema and resolves the rules between groups (the base URL, the cookies' names, the links' origin).
// Each group is typed `OptionGroup<typeof X_SCHEMA>`: the emitted .d.ts then names the schema, whose JSDoc
// (each option's editor hover) it keeps; inferred, it would copy the schema's type from another file without them.

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
  cookies: group(COOKIES_SCHEMA) as OptionGroup<typeof COOKIES_SCHEMA>,
  email: group(EMAIL_SCHEMA) as OptionGroup<typeof EMAIL_SCHEMA>,
  /**
   * extra origins for CSRF and callback URLs (`baseUrl`'s origin is always trusted); an app scheme
   * (`capacitor://localhost`, `chrome-extension://<id>`) is compared by scheme and host exactly; a URL without a
   * host (`file:`) is refused
   */
  trustedOrigins: defaulted<string[]>([]),
  session: group(SESSION_SCHEMA) as OptionGroup<typeof SESSION_SCHEMA>,
  emailPassword: group(EMAIL_PASSWORD_SCHEMA) as OptionGroup<typeof EMAIL_PASSWORD_SCHEMA>,
  emailVerification: group(EMAIL_VERIFICATION_SCHEMA) as OptionGroup<typeof EMAIL_VERIFICATION_SCHEMA>,
  deleteAccount: group(DELETE_ACCOUNT_SCHEMA) as OptionGroup<typeof DELETE_ACCOUNT_SCHEMA>,
  rateLimit: group(RATE_LIMIT_SCHEMA) as OptionGroup<typeof RATE_LIMIT_SCHEMA>,
  lockout: group(LOCKOUT_SCHEMA) as OptionGroup<typeof LOCKOUT_SCHEMA>,
  passwordHashing: group(PASSWORD_HASHING_SCHEMA) as OptionGroup<typeof PASSWORD_HASHING_SCHEMA>,
  deviceCookies: group(DEVICE_COOKIES_SCHEMA) as OptionGroup<typeof DEVICE_COOKIES_SCHEMA>,
  hooks: group(HOOKS_SCHEMA) as OptionGroup<typeof HOOKS_SCHEMA>,
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

/** `baseUrl`: required in production, and absolute. */
function resolveBaseUrl(o: Filled): URL {
  if (o.environment === "production" && o.baseUrl === undefined)
    throw new AuthConfigError(
      "baseUrl",
      "is required in production (callback links and CSRF origins are built from it)",
    );
  try {
    return new URL(o.baseUrl ?? "http://localhost:3000");
  } catch {
    throw new AuthConfigError("baseUrl", "must be an absolute URL");
  }
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

/**
 * Validates options and fills defaults (both from `AUTH_SCHEMA`), then the rules between options. Throws
 * `AuthConfigError` naming the first bad field, including keys that are not options (`adapterOptions`: the keys a
 * transport adds, e.g. hono-adapter's `getClientIp`).
 */
export function resolveConfig(options: AuthOptions, adapterOptions: OptionShape = {}): ResolvedConfig {
  const o = applySchema(AUTH_SCHEMA, options, "", adapterOptions);
  // The order of the checks below is the order errors are reported in: the site first, then every emailed link.
  const url = resolveBaseUrl(o);
  const cookies = resolveCookies(o.cookies, o.environment);
  const passwordReset = resolvePasswordResetLink(o.emailPassword, url.origin);
  const emailVerification = resolveEmailVerification(o.emailVerification, url.origin);
  const deleteAccount = resolveDeleteAccount(o.deleteAccount, url.origin);
  return {
    secret: o.secret,
    baseUrl: url.toString().replace(/\/$/, ""),
    baseOrigin: url.origin,
    cookies,
    basePath: o.basePath,
    environment: o.environment,
    appName: o.appName,
    email: resolveEmail(o.email, url.hostname),
    trustedOrigins: resolveTrustedOrigins(o.trustedOrigins, url.origin),
    session: resolveSession(o.session),
    emailPassword: resolveEmailPassword(
      options.emailPassword,
      o.emailPassword,
      passwordReset,
      resolveLogger(options.logger),
    ),
    emailVerification,
    deleteAccount,
    rateLimit: resolveRateLimit(o.rateLimit),
    lockout: resolveLockout(o.lockout),
    passwordHashing: resolvePasswordHashing(o.passwordHashing),
    deviceCookies: resolveDeviceCookies(o.deviceCookies, o.cookies.secure, o.cookies.domain),
    captureOtp: o.captureOtp,
  };
}
