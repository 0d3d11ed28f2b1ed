import { AuthError } from "../errors/errors.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../kernel/config.ts";
import type { Clock } from "../ports/clock.ts";
import { consoleLogger, type Logger } from "../logger/logger.ts";
import type { Store } from "../ports/store.ts";
import { ipBuckets } from "./ip.ts";
import { retryAfterText } from "./retry-after.ts";

// The lockout and the shared hashing budget live beside this file; their names stay importable from here.
export { retryAfterText } from "./retry-after.ts";
export { HashBudget } from "./hash-budget.ts";
export { Lockout, accountLockKey, codeLockKey, lockoutIdentifier } from "./lockout.ts";

/**
 * The rate-limit key of an address: IPv4 as is, IPv6 bucketed by its /64 (one host owns a whole /64, so
 * per-address limits on IPv6 are trivially bypassed otherwise); "unknown" for text that is not an address.
 *
 * @example
 * ipBucket("2001:db8:1:2:3:4:5:6"); // "2001:db8:1:2::/64"
 */
export function ipBucket(ip: string): string {
  return ipBuckets(ip)?.address ?? "unknown";
}

/**
 * Per-IP fixed-window limits with counters in the store, so every instance shares them. A rule is keyed by a
 * name the transport chooses (hono-adapter: the route's path relative to the mount); the transport declares each
 * default with `register`, and `rateLimit.rules[name]` overrides it.
 */
export class RateLimiter {
  private readonly registered = new Map<string, ResolvedRule | false>();
  private warnedUnknownIp = false;

  /**
   * Whether a request without a client address may go on. Pooling every such client into one budget lets one
   * client's traffic lock out everyone else (the 11th sign-in of unrelated users is 429), so production refuses
   * it unless `rateLimit.ipless` says what to do; development warns once and pools.
   */
  private acceptsUnknownIp(): boolean {
    const { rateLimit, environment } = this.config;
    if (rateLimit.ipless !== null) return true;
    if (environment === "production") return false;
    if (!this.warnedUnknownIp) {
      this.warnedUnknownIp = true;
      this.logger.warn(
        { component: "rate-limit" },
        'getClientIp found no client address: every such client shares one rate-limit budget. Configure getClientIp, or set rateLimit.ipless to "shared" or "skip" (production refuses these requests until you do).',
      );
    }
    return true;
  }

  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger = consoleLogger(),
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
   * Counts one request of `ip` to `path` against the path's rule and the global rule, each per address (IPv4, IPv6
   * /64) and per enclosing network (IPv4 /24, IPv6 /48, with the rule's larger `networkMax`); throws RATE_LIMITED
   * (with `retryAfter` seconds) when either is exceeded. A request its address already refuses is not counted
   * against the network, so one address over its own limit cannot spend its neighbours' budget. `global` is false
   * for cheap reads. Text that is not an address counts as an unknown client.
   */
  async check(ip: string | null, path: string, options: { global: boolean }): Promise<void> {
    const { rateLimit } = this.config;
    if (!rateLimit.enabled) return;
    const buckets = ip === null ? null : ipBuckets(ip);
    if (buckets === null && !this.acceptsUnknownIp()) {
      throw new AuthError(
        "INTERNAL_ERROR",
        "The server cannot tell clients apart: getClientIp found no client address. Configure getClientIp (clientIp.fromSocket with the runtime's env, clientIp.fromCfConnectingIp on Workers, clientIp.fromForwardedFor behind proxies) or set rateLimit.ipless",
      );
    }
    if (buckets === null && rateLimit.ipless === "skip") return;
    const now = this.clock.now();
    const specific = this.ruleFor(path);
    const checks: Array<[string, ResolvedRule]> = [];
    if (specific) checks.push([`rl:${path}:`, specific]);
    if (options.global && specific !== false) checks.push([`rl:*${path}:`, rateLimit.global]);
    for (const [prefix, rule] of checks) {
      const address = { key: `${prefix}${buckets?.address ?? "unknown"}`, windowMs: rule.windowMs, max: rule.max };
      // Unknown clients share one budget: there is no network around it.
      if (buckets === null) {
        const state = await this.store.counters.hit(address.key, rule.windowMs, now);
        if (state.count > rule.max) throw limited("address", state.resetAt, now);
        continue;
      }
      const network = { key: `${prefix}net:${buckets.network}`, windowMs: rule.windowMs };
      const { counters } = this.store;
      const { gate, next } = counters.hitGated
        ? await counters.hitGated(address, network, now)
        : await hitThenMaybe(counters, address, network, now);
      if (gate.count > rule.max) throw limited("address", gate.resetAt, now);
      if (next && next.count > networkMaxOf(rule)) throw limited("network", next.resetAt, now);
    }
  }
}

/** What one enclosing network may spend of a rule: its own `networkMax`, else six addresses' worth. */
function networkMaxOf(rule: ResolvedRule): number {
  return rule.networkMax ?? rule.max * NETWORK_FACTOR;
}

/** A rule's network budget when it names none: `max` times this. */
const NETWORK_FACTOR = 6;

function limited(scope: "address" | "network", resetAt: number, now: number): AuthError {
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return new AuthError(
    "RATE_LIMITED",
    `Too many requests from this ${scope}; try again in ${retryAfterText(retryAfter)}`,
    { retryAfter },
  );
}

/** `hitGated` for a counter store without it: the gate, then `next` only when the gate admitted the hit. */
async function hitThenMaybe(
  counters: Store["counters"],
  gate: { key: string; windowMs: number; max: number },
  next: { key: string; windowMs: number },
  now: number,
) {
  const state = await counters.hit(gate.key, gate.windowMs, now);
  return { gate: state, next: state.count > gate.max ? null : await counters.hit(next.key, next.windowMs, now) };
}
