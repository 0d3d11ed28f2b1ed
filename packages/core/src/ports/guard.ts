import { AuthError } from "../errors/errors.ts";
import type { Store, StorePorts } from "./store.ts";

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The error every store throws when its database cannot be reached: 503 `DATABASE_UNAVAILABLE` over HTTP. */
export function databaseUnavailable(cause: unknown): AuthError {
  return new AuthError("DATABASE_UNAVAILABLE", "The database is unavailable; try again shortly", {
    cause,
    retryAfter: DATABASE_RETRY_AFTER_SECONDS,
  });
}

/** True for the error `databaseUnavailable` builds (anywhere in a cause chain). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof AuthError && current.code === "DATABASE_UNAVAILABLE") return true;
    current = current.cause;
  }
  return false;
}

type AnyFn = (...args: unknown[]) => unknown;
const PORT_NAMES = [
  "users",
  "sessions",
  "accounts",
  "verifications",
  "counters",
  "apiKeys",
  "jwks",
  "audit",
  "twoFactor",
  "socialAccounts",
  "passkeys",
  "organizations",
] as const;

/**
 * `fn` whose failures (thrown or rejected) an unavailable database turns into `databaseUnavailable`; always a
 * promise. Not an async function: a port call that returns a promise gets one reaction on it instead of an async
 * frame awaiting it (each store call of a request goes through here).
 */
function guardFn<F extends AnyFn>(fn: F, self: unknown, isUnavailable: (error: unknown) => boolean): F {
  const mapped = (error: unknown) => {
    throw !(error instanceof AuthError) && isUnavailable(error) ? databaseUnavailable(error) : error;
  };
  return ((...args: unknown[]) => {
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (error) {
      return Promise.reject(error).catch(mapped);
    }
    return (result instanceof Promise ? result : Promise.resolve(result)).catch(mapped);
  }) as F;
}

function guardPort<P extends object>(port: P, isUnavailable: (error: unknown) => boolean): P {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(port))
    out[name] = typeof value === "function" ? guardFn(value as AnyFn, port, isUnavailable) : value;
  return out as P;
}

/**
 * Wraps every port method so that errors `isUnavailable` recognises (connection refused, reset or timed out,
 * server shutting down) become `databaseUnavailable(error)`; other errors pass through unchanged.
 * For store authors: the driver's own classification stays inside the store package.
 *
 * @example
 * import { guardPorts } from "@latchkey/core";
 * const ports = guardPorts(rawPorts, (e) => (e as { code?: string }).code === "ECONNREFUSED");
 */
export function guardPorts<P extends StorePorts>(ports: P, isUnavailable: (error: unknown) => boolean): P {
  const out = { ...ports } as P;
  for (const name of PORT_NAMES) {
    // Plugin-owned ports are optional: a store without them has nothing to guard there.
    const port = ports[name];
    if (port) (out as StorePorts)[name] = guardPort(port, isUnavailable) as never;
  }
  return out;
}

/** `guardPorts` for a whole store: ports, `transaction` and `ping`. */
export function guardStore<S extends Store>(store: S, isUnavailable: (error: unknown) => boolean): S {
  const guarded = guardPorts(store, isUnavailable);
  return {
    ...guarded,
    kind: store.kind,
    transaction: guardFn(store.transaction as AnyFn, store, isUnavailable) as Store["transaction"],
    ping: guardFn(store.ping as AnyFn, store, isUnavailable) as Store["ping"],
    close: () => store.close(),
  } as S;
}
