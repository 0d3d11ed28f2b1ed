import { AuthConfigError } from "../errors/errors.ts";
import { defaulted, optional, type FilledOf } from "../config/schema.ts";
import { integerIn } from "../config/checks.ts";
import {
  RATE_LIMIT_RULE_SCHEMA,
  resolveRateLimitRule,
  type RateLimitRule,
  type ResolvedRule,
} from "../config/rate-limit-rule.ts";
import { defaultHashConcurrency } from "./argon2.ts";
import type { PasswordCheck } from "./policy.ts";

/** `createAuth({ emailPassword: { passwordPolicy } })`: what a new password must be. */
export const PASSWORD_POLICY_SCHEMA = {
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

/** `createAuth({ passwordHashing })`: how many hashes run and wait, and an optional shared budget. */
export const PASSWORD_HASHING_SCHEMA = {
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

/** The hashing limits resolved (`ResolvedConfig["passwordHashing"]`). */
export function resolvePasswordHashing(o: FilledOf<typeof PASSWORD_HASHING_SCHEMA>): {
  concurrency: number;
  maxQueue: number;
  unauthenticatedBudget: ResolvedRule | false;
} {
  const { concurrency, maxQueue, unauthenticatedBudget: budget } = o;
  return {
    concurrency,
    maxQueue,
    unauthenticatedBudget:
      budget === undefined || budget === false
        ? false
        : resolveRateLimitRule(budget, "passwordHashing.unauthenticatedBudget"),
  };
}
