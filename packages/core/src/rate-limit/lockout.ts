import { AuthError } from "../errors/errors.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";
import type { AuthEvents } from "../kernel/events.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { emit } from "../kernel/emit.ts";

import { retryAfterText } from "./retry-after.ts";

// The per-account lockout: its keys, and the counter that locks an account after failed passwords or codes.

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
