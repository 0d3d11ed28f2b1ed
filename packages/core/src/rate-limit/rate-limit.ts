import { AuthError } from "../errors/errors.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../config/options.ts";
import type { Clock } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";
import type { AuthEvents } from "../events/events.ts";
import type { RequestMeta } from "../auth/request-meta.ts";

/**
 * The rate-limit key of an address: IPv4 as is, IPv6 bucketed by its /64 (one host owns a whole /64,
 * so per-address limits on IPv6 are trivially bypassed otherwise).
 *
 * @example
 * ipBucket("2001:db8:1:2:3:4:5:6"); // "2001:db8:1:2::/64"
 */
export function ipBucket(ip: string): string {
  const v = ip
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (!v.includes(":")) return v;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  if (mapped) return mapped[1]!;
  const zoneless = v.split("%")[0]!;
  const [head = "", tail = ""] = zoneless.split("::");
  const left = head ? head.split(":") : [];
  const right = zoneless.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = zoneless.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (g || "0").replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * A wait in words for 429 messages (the exact seconds are in `Retry-After`): "1 second", "45 seconds", "3 minutes".
 *
 * @example
 * retryAfterText(90); // "2 minutes"
 */
export function retryAfterText(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/**
 * Per-IP fixed-window limits with counters in the store, so every instance shares them. A rule is keyed by a
 * name the transport chooses (hono-adapter: the route's path relative to the mount); the transport declares each
 * default with `register`, and `rateLimit.rules[name]` overrides it.
 */
export class RateLimiter {
  private readonly registered = new Map<string, ResolvedRule | false>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Declares the default rule of `path` (none: only the global rule applies) and returns the rule in force:
   * the `rateLimit.rules[path]` override when set (a rule, or `false` for none), else the default.
   *
   * @example
   * limiter.register("/sign-in/email", { window: "1m", max: 10 }); // { windowMs: 60000, max: 10 }
   */
  register(path: string, fallback?: RateLimitRule): ResolvedRule | false | undefined {
    const rule =
      this.config.rateLimit.rules[path] ??
      (fallback ? resolveRateLimitRule(fallback, `rateLimit.rules["${path}"]`) : undefined);
    if (rule !== undefined) this.registered.set(path, rule);
    return rule;
  }

  /** The specific rule of a path (relative to the mount), if any: a registered default or an override. */
  ruleFor(path: string): ResolvedRule | false | undefined {
    return this.registered.get(path) ?? this.config.rateLimit.rules[path];
  }

  /**
   * Counts one request of `ip` to `path` against the path's rule and the global rule; throws RATE_LIMITED
   * (with `retryAfter` seconds) when either is exceeded. `global` is false for cheap reads.
   */
  async check(ip: string | null, path: string, options: { global: boolean }): Promise<void> {
    const { rateLimit } = this.config;
    if (!rateLimit.enabled) return;
    const bucket = ip === null ? "unknown" : ipBucket(ip);
    const now = this.clock.now();
    const specific = this.ruleFor(path);
    const checks: Array<[string, ResolvedRule]> = [];
    if (specific) checks.push([`rl:${path}:${bucket}`, specific]);
    if (options.global && specific !== false) checks.push([`rl:*${path}:${bucket}`, rateLimit.global]);
    for (const [key, rule] of checks) {
      const state = await this.store.counters.hit(key, rule.windowMs, now);
      if (state.count > rule.max) {
        const retryAfter = Math.max(1, Math.ceil((state.resetAt - now) / 1000));
        throw new AuthError(
          "RATE_LIMITED",
          `Too many requests from this address; try again in ${retryAfterText(retryAfter)}`,
          { retryAfter },
        );
      }
    }
  }
}

/**
 * The budget every caller shares (not per IP) for routes that hash a password without a session
 * (`passwordHashing.unauthenticatedBudget`): past it they answer 503 `BUSY` with `Retry-After` until the window
 * ends, so a botnet of addresses cannot keep every core hashing. One counter in the store, shared by instances.
 */
export class HashBudget {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Counts one unauthenticated hashing request; throws `BUSY` past the budget. */
  async spend(): Promise<void> {
    const rule = this.config.passwordHashing.unauthenticatedBudget;
    if (!rule) return;
    const now = this.clock.now();
    const state = await this.store.counters.hit("rl:hashing:unauthenticated", rule.windowMs, now);
    if (state.count > rule.max) {
      const retryAfter = Math.max(1, Math.ceil((state.resetAt - now) / 1000));
      throw new AuthError("BUSY", `Too many sign-in attempts overall; try again in ${retryAfterText(retryAfter)}`, {
        retryAfter,
      });
    }
  }
}

/**
 * The lockout identifier of an email or username: every flow that counts failures for an account (password,
 * OTP, verification link) uses the same key, so they share one lock.
 *
 * @example
 * lockoutIdentifier({ email: "ada@example.com" }); // "email:ada@example.com"
 */
export function lockoutIdentifier(input: { email: string } | { username: string }): string {
  return "email" in input ? `email:${input.email}` : `username:${input.username}`;
}

/**
 * Identifier lockout: `maxFailures` failed attempts (passwords, OTPs) within `window` lock the identifier
 * for `duration`, even for the right secret. Unknown identifiers are counted too, so a lock reveals nothing.
 */
export class Lockout {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: AuthEvents,
  ) {}

  /** Throws ACCOUNT_LOCKED while the identifier is locked. */
  async assertNotLocked(identifier: string): Promise<void> {
    if (!this.config.lockout.enabled) return;
    const now = this.clock.now();
    const lock = await this.store.counters.peek(`lock:${identifier}`, now);
    if (!lock) return;
    const retryAfter = Math.max(1, Math.ceil((lock.resetAt - now) / 1000));
    throw new AuthError("ACCOUNT_LOCKED", `Too many failed attempts; try again in ${retryAfterText(retryAfter)}`, {
      retryAfter,
    });
  }

  /** Counts a failure; the failure that reaches the limit locks the identifier. */
  async recordFailure(identifier: string, meta: RequestMeta): Promise<void> {
    const { lockout } = this.config;
    if (!lockout.enabled) return;
    const now = this.clock.now();
    const fails = await this.store.counters.hit(`fail:${identifier}`, lockout.windowMs, now);
    if (fails.count === lockout.maxFailures) {
      const lock = await this.store.counters.hit(`lock:${identifier}`, lockout.durationMs, now);
      await this.store.counters.delete(`fail:${identifier}`);
      await this.events.emit("AccountLocked", {
        identifier,
        until: new Date(lock.resetAt),
        at: new Date(now),
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
    }
  }

  /** A success clears the failure count. */
  async reset(identifier: string): Promise<void> {
    if (!this.config.lockout.enabled) return;
    await this.store.counters.delete(`fail:${identifier}`);
  }

  /** Drops every failure and lock of an identifier: the account behind it is gone, or newly owns it. */
  async forget(identifier: string): Promise<void> {
    await this.store.counters.delete(`fail:${identifier}`);
    await this.store.counters.delete(`lock:${identifier}`);
  }

  /** Moves lockout state when the identifier changes (username change). */
  async move(from: string, to: string): Promise<void> {
    await this.store.counters.rename(`fail:${from}`, `fail:${to}`);
    await this.store.counters.rename(`lock:${from}`, `lock:${to}`);
  }
}
