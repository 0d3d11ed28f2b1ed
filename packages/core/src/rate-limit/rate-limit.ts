import { AuthError } from "../errors/errors.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig, type ResolvedRule } from "../kernel/config.ts";
import type { Clock } from "../ports/clock.ts";
import { consoleLogger, type Logger } from "../logger/logger.ts";
import type { Store } from "../ports/store.ts";
import type { AuthEvents } from "../kernel/events.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { emit } from "../kernel/emit.ts";
import { ipBuckets } from "./ip.ts";

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
 * The lockout identifier of an email or username that does not (or not yet) name an account. Once the identifier
 * resolves to a user, the lockout is keyed by the account instead (`accountLockKey`), so the email and the
 * username of one account share a single budget.
 *
 * @example
 * lockoutIdentifier({ email: "ada@example.com" }); // "email:ada@example.com"
 */
export function lockoutIdentifier(input: { email: string } | { username: string }): string {
  return "email" in input ? `email:${input.email}` : `username:${input.username}`;
}

/**
 * The lockout key of an attempt: `user:<id>` when the identifier belongs to a user (every flow of that account,
 * by email or username, password or code, shares it), else the identifier's own key (unknown identifiers are
 * counted too, so a lock reveals nothing).
 *
 * @example
 * accountLockKey(await store.users.findByEmail(email), lockoutIdentifier({ email })); // "user:u_1" or "email:..."
 */
export function accountLockKey(user: { id: string } | null, identifier: string): string {
  return user ? `user:${user.id}` : identifier;
}

/**
 * The lockout key of emailed codes for an account (or identifier) key: codes are a proof of the mailbox, so their
 * guesses are counted apart from passwords. Wrong passwords never lock a delivered code, and wrong codes never lock
 * the password; a code's key also has a daily ceiling (`lockout.codeFailuresPerDay`).
 *
 * @example
 * codeLockKey("user:u_1"); // "code:user:u_1"
 */
export function codeLockKey(key: string): string {
  return `code:${key}`;
}

const DAY_MS = 86_400_000;

/** A counted attempt (`Lockout.attempt`): hand it back to `failed` when the secret was wrong. */
export interface LockoutAttempt {
  key: string;
  /** The attempt's number in the current window (0 with the lockout off). */
  count: number;
}

/**
 * Identifier lockout: `maxFailures` failed attempts (passwords, OTPs) within `window` lock the identifier
 * for `duration`, even for the right secret. Unknown identifiers are counted too, so a lock reveals nothing.
 *
 * Password checks count first (`attempt`): the counter hit that admits an attempt is the same atomic step that
 * numbers it, so N parallel guesses see counts 1..N and only the first `maxFailures` reach the hasher. The count
 * itself refuses (`> maxFailures`) whether or not the lock write that follows succeeded, so a failed lock write
 * never switches the lockout off.
 */
export class Lockout {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: AuthEvents,
  ) {}

  private locked(resetAt: number, now: number): AuthError {
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    return new AuthError("ACCOUNT_LOCKED", `Too many failed attempts; try again in ${retryAfterText(retryAfter)}`, {
      retryAfter,
    });
  }

  /**
   * Throws ACCOUNT_LOCKED while the key is locked, or while its failures in the window already reached
   * `maxFailures` (the lock write after them may have failed: the count alone keeps it closed). Otherwise answers
   * the failures counted in the window (0 with the lockout off): a success that follows needs `reset` only when
   * there were some.
   */
  async assertNotLocked(key: string, options: { daily?: boolean } = {}): Promise<number> {
    const { lockout } = this.config;
    if (!lockout.enabled) return 0;
    const now = this.clock.now();
    const { counters } = this.store;
    const daily = options.daily === true && lockout.codeFailuresPerDay !== false;
    const keys = [`lock:${key}`, `fail:${key}`, ...(daily ? [`faildaily:${key}`] : [])];
    // One round trip where the store can peek every key at once.
    const [lock, fails, day] = counters.peekMany
      ? await counters.peekMany(keys, now)
      : await Promise.all(keys.map((k) => counters.peek(k, now)));
    if (lock) throw this.locked(lock.resetAt, now);
    if (fails && fails.count >= lockout.maxFailures) throw this.locked(fails.resetAt, now);
    // The long-run cap across lock cycles: the day's failures alone refuse until the day's window ends.
    if (day && lockout.codeFailuresPerDay !== false && day.count >= lockout.codeFailuresPerDay)
      throw this.locked(day.resetAt, now);
    return fails?.count ?? 0;
  }

  /**
   * Counts an attempt BEFORE its secret is checked and throws ACCOUNT_LOCKED when the key is locked or this
   * attempt is past `maxFailures`. Call `succeeded` after a right secret (the count starts over) and `failed`
   * after a wrong one.
   */
  async attempt(key: string, meta: RequestMeta): Promise<LockoutAttempt> {
    const { lockout } = this.config;
    if (!lockout.enabled) return { key, count: 0 };
    const now = this.clock.now();
    // A visible lock refuses without counting (attempts during a lock do not extend it).
    const before = await this.store.counters.peek(`lock:${key}`, now);
    if (before) throw this.locked(before.resetAt, now);
    const fails = await this.store.counters.hit(`fail:${key}`, lockout.windowMs, now);
    if (fails.count > lockout.maxFailures) {
      const lock = await this.lock(key, meta, now);
      throw this.locked(lock.resetAt, now);
    }
    // A lock written between the peek and the hit (it also restarts the count) still refuses this attempt.
    const after = await this.store.counters.peek(`lock:${key}`, now);
    if (after) throw this.locked(after.resetAt, now);
    return { key, count: fails.count };
  }

  /** The secret of a counted attempt was wrong: the attempt that reaches `maxFailures` locks the key. */
  async failed(attempt: LockoutAttempt, meta: RequestMeta): Promise<void> {
    if (!this.config.lockout.enabled) return;
    if (attempt.count >= this.config.lockout.maxFailures) await this.lock(attempt.key, meta, this.clock.now());
  }

  /** The secret of a counted attempt was right: the failure count starts over. */
  async succeeded(attempt: LockoutAttempt): Promise<void> {
    await this.reset(attempt.key);
  }

  /**
   * Counts a failure after the fact (codes and links, whose rows carry their own attempt budget); every failure
   * at or past `maxFailures` (re)writes the lock, so one failed lock write does not leave the key open.
   */
  async recordFailure(key: string, meta: RequestMeta, options: { daily?: boolean } = {}): Promise<void> {
    const { lockout } = this.config;
    if (!lockout.enabled) return;
    const now = this.clock.now();
    // The day's count first: it is never reset by a success or a lock, so it caps failures across lock cycles.
    if (options.daily && lockout.codeFailuresPerDay !== false)
      await this.store.counters.hit(`faildaily:${key}`, DAY_MS, now);
    const fails = await this.store.counters.hit(`fail:${key}`, lockout.windowMs, now);
    if (fails.count >= lockout.maxFailures) await this.lock(key, meta, now);
  }

  /** Writes the lock (the first writer of a lock emits `AccountLocked`), then restarts the failure count. */
  private async lock(key: string, meta: RequestMeta, now: number): Promise<{ resetAt: number }> {
    const lock = await this.store.counters.hit(`lock:${key}`, this.config.lockout.durationMs, now);
    await this.store.counters.delete(`fail:${key}`);
    if (lock.count === 1) {
      const locked = { identifier: key, until: new Date(lock.resetAt) };
      await emit({ events: this.events, clock: this.clock }, "AccountLocked", locked, meta, new Date(now));
    }
    return lock;
  }

  /** A success clears the failure count. */
  async reset(key: string): Promise<void> {
    if (!this.config.lockout.enabled) return;
    await this.store.counters.delete(`fail:${key}`);
  }

  /** Drops every failure and lock of a key: the account behind it is gone, or newly owns it. */
  async forget(key: string): Promise<void> {
    await this.store.counters.delete(`fail:${key}`);
    await this.store.counters.delete(`lock:${key}`);
  }

  /** Drops every failure, lock and day count of an account's codes (the account is gone). */
  async forgetCodes(key: string): Promise<void> {
    await this.forget(codeLockKey(key));
    await this.store.counters.delete(`faildaily:${codeLockKey(key)}`);
  }

  /** Moves lockout state when the identifier changes (username change). */
  async move(from: string, to: string): Promise<void> {
    await this.store.counters.rename(`fail:${from}`, `fail:${to}`);
    await this.store.counters.rename(`lock:${from}`, `lock:${to}`);
  }
}
