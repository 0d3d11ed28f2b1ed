import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { defaulted, optional, required, type FilledOf } from "../config/schema.ts";
import { integerIn, isDuration } from "../config/checks.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../kernel/config.ts";

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

/** `createAuth({ rateLimit })`: the per-IP (and per-network) rules. */
export const RATE_LIMIT_SCHEMA = {
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

/** `createAuth({ lockout })`: the per-account lockout after failed password checks and wrong codes. */
export const LOCKOUT_SCHEMA = {
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

/** The per-IP rules: only the overrides, the global rule and what to do with requests of no address. */
export function resolveRateLimit(o: FilledOf<typeof RATE_LIMIT_SCHEMA>): ResolvedConfig["rateLimit"] {
  // Only the overrides: each route declares its own default rule, and the limiter merges the two when the
  // adapter registers the route (`RateLimiter.register`).
  const rules: Record<string, ResolvedRule | false> = {};
  for (const [p, r] of Object.entries(o.rules ?? {}))
    rules[p] = r === false ? false : resolveRateLimitRule(r, `rateLimit.rules["${p}"]`);
  return {
    enabled: o.enabled,
    global: resolveRateLimitRule({ window: o.window, max: o.max, networkMax: o.networkMax }, "rateLimit"),
    rules,
    ipless: o.ipless ?? null,
  };
}

export function resolveLockout(o: FilledOf<typeof LOCKOUT_SCHEMA>): ResolvedConfig["lockout"] {
  return {
    enabled: o.enabled,
    maxFailures: o.maxFailures,
    windowMs: parseDuration(o.window, "lockout.window"),
    durationMs: parseDuration(o.duration, "lockout.duration"),
    codeFailuresPerDay: o.codeFailuresPerDay,
  };
}
