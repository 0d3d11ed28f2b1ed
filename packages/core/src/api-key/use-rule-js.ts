import type { ApiKeyRecord } from "../ports/records.ts";
import type { ApiKeyUseRefusal } from "../ports/store.ts";
import { apiKeyUseRule, type ApiKeyUseRule, type UseRuleBuilder } from "./use-rule.ts";

/** The JavaScript reading of the use rule: each expression is a function of the key's row. */
export interface JsRepr {
  bool: (row: ApiKeyRecord) => boolean;
  num: (row: ApiKeyRecord) => number | null;
  time: (row: ApiKeyRecord) => Date | null;
}
type Operand = JsRepr["num"] | JsRepr["time"];

// The builder's contract: comparisons and arithmetic never see a null. A rule that broke it would decide
// differently in SQL (null) and MongoDB (null sorts first), so here it is an error, not a guess.
function present(value: number | Date | null, op: string): number {
  if (value === null) throw new TypeError(`API-key use rule: ${op} of a null (guard it with isNull)`);
  return value instanceof Date ? value.getTime() : value;
}

/**
 * `UseRuleBuilder` that evaluates in JavaScript, for the memory store and for explaining a refusal.
 *
 * @example
 * const rule = apiKeyUseRule(jsUseRuleBuilder(now)); rule.allowed(key);
 */
export function jsUseRuleBuilder(now: Date): UseRuleBuilder<JsRepr> {
  const at = now.getTime();
  return {
    num: (name) => (row) => row[name],
    time: (name) => (row) => row[name],
    enabled: () => (row) => row.enabled,
    now: () => () => new Date(at),
    int: (value) => () => value,
    isNull: (value) => (row) => value(row) === null,
    and:
      (...terms) =>
      (row) =>
        terms.every((t) => t(row)),
    or:
      (...terms) =>
      (row) =>
        terms.some((t) => t(row)),
    not: (term) => (row) => !term(row),
    lte: (left: Operand, right: Operand) => (row) => present(left(row), "<=") <= present(right(row), "<="),
    lt: (left: Operand, right: Operand) => (row) => present(left(row), "<") < present(right(row), "<"),
    add: (left, right) => (row) => present(left(row), "+") + present(right(row), "+"),
    sub: (left, right) => (row) => present(left(row), "-") - present(right(row), "-"),
    addMs: (instant, ms) => (row) => new Date(present(instant(row), "+ ms") + present(ms(row), "+ ms")),
    coalesce: <T extends Operand>(value: T, fallback: T) => ((row: ApiKeyRecord) => value(row) ?? fallback(row)) as T,
    when: <T extends Operand>(test: JsRepr["bool"], then: T, otherwise: T) =>
      ((row: ApiKeyRecord) => (test(row) ? then(row) : otherwise(row))) as T,
  };
}

/** The rule in JavaScript at `now`. */
export function jsApiKeyUseRule(now: Date): ApiKeyUseRule<JsRepr> {
  return apiKeyUseRule(jsUseRuleBuilder(now));
}

/**
 * The first refusal of `rule` that holds for `key` (see `apiKeyUseRule` for the order); null when it may be used.
 *
 * @example
 * refusalOf(jsApiKeyUseRule(now), key); // "USAGE_EXCEEDED"
 */
export function refusalOf(rule: ApiKeyUseRule<JsRepr>, key: ApiKeyRecord): ApiKeyUseRefusal | null {
  for (const [reason, test] of rule.refusals) if (test(key)) return reason;
  return null;
}

/**
 * The key after one admitted use at the rule's `now` (the memory store's write; SQL and MongoDB compute the same
 * columns in their update).
 *
 * @example
 * const next = applyUse(jsApiKeyUseRule(now), key);
 */
export function applyUse(rule: ApiKeyUseRule<JsRepr>, key: ApiKeyRecord): ApiKeyRecord {
  const { set } = rule;
  return {
    ...key,
    remaining: set.remaining(key),
    lastRefillAt: set.lastRefillAt(key),
    requestCount: present(set.requestCount(key), "requestCount"),
    windowStart: set.windowStart(key),
    lastUsedAt: set.lastUsedAt(key),
  };
}
