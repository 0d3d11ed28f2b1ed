import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "./duration.ts";
import { required } from "./schema.ts";

/** One rate-limit rule as an option: `{ window: "1m", max: 10 }`. */
export interface RateLimitRule {
  window: Duration;
  max: number;
  /**
   * Per-IP rules only: what one enclosing network (IPv4 /24, IPv6 /48) may spend per `window`, all its addresses
   * together. Default: 6 × `max`.
   */
  networkMax?: number;
}

export interface ResolvedRule {
  windowMs: number;
  max: number;
  /** Per-IP rules: the enclosing network's budget (absent: 6 × `max`). */
  networkMax?: number;
}

/** A rate-limit rule as an option (`RateLimitRule`): both keys required. */
export const RATE_LIMIT_RULE_SCHEMA = {
  /** the rule's window: both `window` and `max` required */
  window: required<Duration>(),
  /** requests (or sends) allowed per `window` */
  max: required<number>(),
};

/** Checks one rate-limit rule; `field` names it in the error (`rateLimit.rules["/sign-in/email"]`). */
export function resolveRateLimitRule(r: RateLimitRule, field: string): ResolvedRule {
  if (!Number.isInteger(r.max) || r.max < 1) throw new AuthConfigError(`${field}.max`, "must be a positive integer");
  const resolved: ResolvedRule = { windowMs: parseDuration(r.window, `${field}.window`), max: r.max };
  if (r.networkMax === undefined) return resolved;
  if (!Number.isInteger(r.networkMax) || r.networkMax < r.max)
    throw new AuthConfigError(`${field}.networkMax`, "must be an integer at least `max`");
  return { ...resolved, networkMax: r.networkMax };
}
