import type { ApiKeyUseRefusal } from "../ports/store.ts";

/**
 * What one expression language calls a boolean, a number and an instant. A SQL store uses one type for all three
 * (a `sql` fragment); the JavaScript evaluator uses functions of the row.
 */
export interface UseRuleRepr {
  bool: unknown;
  num: unknown;
  time: unknown;
}

/** The numeric columns of an API key that the use rule reads or writes (null where the record allows it). */
export type UseRuleNumField =
  | "remaining"
  | "refillAmount"
  | "refillIntervalMs"
  | "rateLimitMax"
  | "rateLimitWindowMs"
  | "requestCount";
/** The instant columns of an API key that the use rule reads or writes. */
export type UseRuleTimeField = "expiresAt" | "lastRefillAt" | "createdAt" | "windowStart" | "lastUsedAt";

/**
 * The small expression language the API-key use rule is written in, once (tagless final): each store implements
 * it for its own query language and runs what `apiKeyUseRule` builds in one atomic statement.
 *
 * Contract every implementation keeps: `now()` is the instant of the use, bound once per statement; a comparison
 * or an arithmetic operator never sees a null (the rule guards each nullable column with `isNull` first, and the
 * JavaScript evaluator throws if it does not), so SQL's three-valued logic and MongoDB's null ordering never
 * decide anything; `and`/`or`/`when` may short-circuit.
 */
export interface UseRuleBuilder<R extends UseRuleRepr> {
  num(name: UseRuleNumField): R["num"];
  time(name: UseRuleTimeField): R["time"];
  enabled(): R["bool"];
  now(): R["time"];
  /** A small non-negative integer constant (never a caller's value). */
  int(value: number): R["num"];
  isNull(value: R["num"] | R["time"]): R["bool"];
  and(...terms: R["bool"][]): R["bool"];
  or(...terms: R["bool"][]): R["bool"];
  not(term: R["bool"]): R["bool"];
  lte<T extends R["num"] | R["time"]>(left: T, right: T): R["bool"];
  lt<T extends R["num"] | R["time"]>(left: T, right: T): R["bool"];
  add(left: R["num"], right: R["num"]): R["num"];
  sub(left: R["num"], right: R["num"]): R["num"];
  /** `instant` plus `ms` milliseconds. */
  addMs(instant: R["time"], ms: R["num"]): R["time"];
  /** The first argument unless it is null. */
  coalesce<T extends R["num"] | R["time"]>(value: T, fallback: T): T;
  /** `then` where `test` holds, else `otherwise`. */
  when<T extends R["num"] | R["time"]>(test: R["bool"], then: T, otherwise: T): T;
}

/** The columns a use writes, each as an expression over the row before the use. */
export interface ApiKeyUseSet<R extends UseRuleRepr> {
  remaining: R["num"];
  lastRefillAt: R["time"];
  requestCount: R["num"];
  windowStart: R["time"];
  lastUsedAt: R["time"];
}

/** The API-key use rule in one language: the refusals in the order they are reported, the admission, the write. */
export interface ApiKeyUseRule<R extends UseRuleRepr> {
  /** Each refusal's condition, first match wins: disabled, expired, used up, rate limited. */
  refusals: ReadonlyArray<readonly [Exclude<ApiKeyUseRefusal, "NOT_FOUND">, R["bool"]]>;
  /** True when none of the refusals holds: the store's conditional write matches only such a row. */
  allowed: R["bool"];
  /** What the admitted use writes. */
  set: ApiKeyUseSet<R>;
  /** True when the use refills first (its refill interval passed since the last refill, or creation). */
  refillDue: R["bool"];
}

/**
 * The one definition of whether an API key may be used at `now()` and what a use writes. A refill due at `now`
 * makes a used-up key usable and resets `remaining` to `refillAmount - 1`; an ended per-key window (or none yet)
 * restarts at `now` with one request. Stores run `allowed` as the condition of one atomic update whose new values
 * are `set`; core evaluates `refusals` in JavaScript to name why a refused use was refused.
 *
 * @example
 * const rule = apiKeyUseRule(sqlBuilder); // db.update(apiKeys).set(rule.set).where(and(eq(apiKeys.id, id), rule.allowed))
 */
export function apiKeyUseRule<R extends UseRuleRepr>(b: UseRuleBuilder<R>): ApiKeyUseRule<R> {
  const now = b.now();
  const notNull = (value: R["num"] | R["time"]) => b.not(b.isNull(value));
  const refillDue = b.and(
    notNull(b.num("refillAmount")),
    notNull(b.num("refillIntervalMs")),
    b.lte(b.addMs(b.coalesce(b.time("lastRefillAt"), b.time("createdAt")), b.num("refillIntervalMs")), now),
  );
  const windowed = b.and(notNull(b.num("rateLimitMax")), notNull(b.num("rateLimitWindowMs")));
  // Read only where `windowed` holds. A missing start counts as a window that ended long ago.
  const windowEnded = b.or(
    b.isNull(b.time("windowStart")),
    b.lte(b.addMs(b.time("windowStart"), b.num("rateLimitWindowMs")), now),
  );
  const refusals = [
    ["KEY_DISABLED", b.not(b.enabled())],
    ["KEY_EXPIRED", b.and(notNull(b.time("expiresAt")), b.lte(b.time("expiresAt"), now))],
    ["USAGE_EXCEEDED", b.and(notNull(b.num("remaining")), b.lte(b.num("remaining"), b.int(0)), b.not(refillDue))],
    [
      "RATE_LIMITED",
      b.and(windowed, b.lte(b.num("rateLimitMax"), b.when(windowEnded, b.int(0), b.num("requestCount")))),
    ],
  ] as const;
  const one = b.int(1);
  const set: ApiKeyUseSet<R> = {
    remaining: b.when(
      refillDue,
      b.sub(b.num("refillAmount"), one),
      b.when(b.isNull(b.num("remaining")), b.num("remaining"), b.sub(b.num("remaining"), one)),
    ),
    lastRefillAt: b.when(refillDue, now, b.time("lastRefillAt")),
    requestCount: b.when(windowed, b.when(windowEnded, one, b.add(b.num("requestCount"), one)), b.num("requestCount")),
    windowStart: b.when(windowed, b.when(windowEnded, now, b.time("windowStart")), b.time("windowStart")),
    lastUsedAt: now,
  };
  return { refusals, allowed: b.not(b.or(...refusals.map(([, test]) => test))), set, refillDue };
}
