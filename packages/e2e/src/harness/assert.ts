/** A failed expectation of the end-to-end suite. Plain `Error`: no runtime's assert module is used. */
export class E2eAssertionError extends Error {
  override name = "E2eAssertionError";
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Throws unless `value` is truthy.
 *
 * @example
 * import { ok } from "@latchkey/e2e";
 * ok(body.user, "sign-up returns the user");
 */
export function ok(value: unknown, message: string): asserts value {
  if (!value) throw new E2eAssertionError(`${message} (got ${show(value)})`);
}

/**
 * Throws unless `actual` deep-equals `expected` (plain JSON values).
 *
 * @example
 * import { equal } from "@latchkey/e2e";
 * equal(res.status, 200, "get-session answers 200");
 */
export function equal(actual: unknown, expected: unknown, message: string): void {
  if (!deepEqual(actual, expected))
    throw new E2eAssertionError(`${message}: expected ${show(expected)}, got ${show(actual)}`);
}

/**
 * Throws unless `actual` is different from `unexpected`.
 *
 * @example
 * import { notEqual } from "@latchkey/e2e";
 * notEqual(signIn.token, signUp.token, "sign-in issues a new token");
 */
export function notEqual(actual: unknown, unexpected: unknown, message: string): void {
  if (deepEqual(actual, unexpected)) throw new E2eAssertionError(`${message}: did not expect ${show(unexpected)}`);
}

/**
 * Throws unless `actual` is a string matching `pattern`.
 *
 * @example
 * import { match } from "@latchkey/e2e";
 * match(res.headers.get("x-frame-options"), /^DENY$/, "framing is refused");
 */
export function match(actual: unknown, pattern: RegExp, message: string): void {
  if (typeof actual !== "string" || !pattern.test(actual))
    throw new E2eAssertionError(`${message}: expected ${show(actual)} to match ${pattern}`);
}
