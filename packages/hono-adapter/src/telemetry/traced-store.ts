import type { Store, StorePorts } from "@latchkey/core";
import { withSpan, type TelemetryHandle } from "./otel.ts";

/** The ports a store call can go through, as named in span names (`latchkey.store users.findByEmail`). */
const PORTS = new Set(["users", "sessions", "accounts", "verifications", "counters", "apiKeys", "jwks", "audit"]);

/** `db.system.name` per store kind (OpenTelemetry's values where one exists). */
const DB_SYSTEM: Record<string, string> = {
  postgres: "postgresql",
  sqlite: "sqlite",
  d1: "sqlite",
  mongodb: "mongodb",
  memory: "memory",
};

type AnyFunction = (...args: unknown[]) => unknown;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";

/** Runs `run` inside a client span named after the store operation; straight through without telemetry. */
function storeCall(
  handle: TelemetryHandle,
  operation: string,
  dbSystem: string,
  storeKind: string,
  run: () => unknown,
): unknown {
  const telemetry = handle.current;
  if (!telemetry) return run();
  const { api } = telemetry;
  return withSpan(
    telemetry,
    `latchkey.store ${operation}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: { "db.system.name": dbSystem, "db.operation.name": operation, "latchkey.store": storeKind },
    },
    (span) => {
      if (!span) return run();
      const fail = (error: unknown) => {
        const type = error instanceof Error ? error.name : typeof error;
        span.setAttribute("error.type", type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
        span.end();
        throw error;
      };
      let result: unknown;
      try {
        result = run();
      } catch (error) {
        fail(error);
      }
      if (!isThenable(result)) {
        span.end();
        return result;
      }
      return Promise.resolve(result).then((value) => {
        span.end();
        return value;
      }, fail);
    },
  );
}

/** A port whose every method call is a store span (`<name>.<method>`). */
function tracedPort<P extends object>(
  handle: TelemetryHandle,
  name: string,
  port: P,
  dbSystem: string,
  kind: string,
): P {
  // One wrapper per method and implementation, made on first use: a store call allocates nothing more.
  const wrappers = new Map<string, { of: AnyFunction; wrapper: AnyFunction }>();
  return new Proxy(port, {
    get(target, method) {
      const value = Reflect.get(target, method);
      if (typeof value !== "function" || typeof method !== "string") return value;
      const cached = wrappers.get(method);
      if (cached?.of === value) return cached.wrapper;
      const wrapper = (...args: unknown[]) =>
        storeCall(handle, `${name}.${method}`, dbSystem, kind, () => (value as AnyFunction).apply(target, args));
      wrappers.set(method, { of: value as AnyFunction, wrapper });
      return wrapper;
    },
  });
}

/**
 * Counters from `createAuth({ counters })` (another engine than the database): spans labelled with the counters'
 * `kind` when they carry one, else `redis` (`redisCounters`, the counter store Latchkey ships).
 */
export function tracedCounters<C extends object>(counters: C, handle: TelemetryHandle): C {
  const kind = (counters as { kind?: unknown }).kind;
  const system = typeof kind === "string" ? kind : "redis";
  return tracedPort(handle, "counters", counters, system, system);
}

/**
 * The store with a client span around every port call (`latchkey.store <port>.<method>`, child of the request span)
 * carrying `db.system.name` and `db.operation.name` only: no statement, no argument, no error message (a driver's
 * message can quote the values). Calls go straight through while no telemetry is loaded. Reads every property at
 * call time, so the store object itself stays the one to patch or close.
 */
export function tracedStore<S extends Store>(store: S, handle: TelemetryHandle): S {
  const system = DB_SYSTEM[store.kind] ?? store.kind;
  const cache = new WeakMap<object, object>();
  const port = (name: string, value: object): object => {
    let traced = cache.get(value);
    if (!traced) {
      traced = tracedPort(handle, name, value, system, store.kind);
      cache.set(value, traced);
    }
    return traced;
  };
  const ports = <P extends object>(target: P): P =>
    new Proxy(target, {
      get(inner, prop) {
        const value = Reflect.get(inner, prop);
        return typeof prop === "string" && PORTS.has(prop) && typeof value === "object" && value !== null
          ? port(prop, value)
          : value;
      },
    });
  const call = (operation: string, run: () => unknown) => storeCall(handle, operation, system, store.kind, run);

  return new Proxy(store, {
    get(target, prop) {
      if (prop === "transaction")
        return <T>(body: (tx: StorePorts) => Promise<T>) =>
          call("transaction", () => target.transaction((tx) => body(ports(tx))));
      if (prop === "ping") return () => call("ping", () => target.ping());
      const value = Reflect.get(target, prop);
      if (typeof prop === "string" && PORTS.has(prop) && typeof value === "object" && value !== null)
        return port(prop, value);
      return typeof value === "function" ? (value as AnyFunction).bind(target) : value;
    },
  });
}
