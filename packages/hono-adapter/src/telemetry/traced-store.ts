import type { Store, StorePorts } from "@latchkey/core";
import { untracedHere, withSpan, type Telemetry, type TelemetryHandle } from "./otel.ts";

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

/** Runs `run` inside a client span named after the store operation (telemetry loaded, a tracer or a span there). */
function storeCall(
  telemetry: Telemetry,
  operation: string,
  dbSystem: string,
  storeKind: string,
  run: () => unknown,
): unknown {
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

/** Every function-valued property of `port`, its prototypes' included (a port may be a class instance). */
function methodNames(port: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = port; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null)
    for (const name of Object.getOwnPropertyNames(o))
      if (name !== "constructor" && typeof Reflect.get(port, name) === "function") names.add(name);
  return [...names];
}

/** The call of `method` on `port` as it is now, in a store span when something would record one. */
function tracedCall(
  handle: TelemetryHandle,
  port: object,
  method: string,
  operation: string,
  dbSystem: string,
  kind: string,
  args: unknown[],
): unknown {
  const telemetry = handle.current;
  if (telemetry === null || untracedHere(telemetry))
    return (Reflect.get(port, method) as AnyFunction).apply(port, args);
  return storeCall(telemetry, operation, dbSystem, kind, () =>
    (Reflect.get(port, method) as AnyFunction).apply(port, args),
  );
}

/**
 * A port whose every method call is a store span (`<name>.<method>`), for the store's own ports (made once per port
 * object): a plain object, no Proxy, that inherits from the port (what it does not wrap reads through). Each wrapper
 * reads the method from the port at call time, so a method patched afterwards is the one called; it goes straight
 * through (no span, no closure) while no telemetry is loaded or nothing would record a span (see `untracedHere`).
 */
function tracedPort<P extends object>(
  handle: TelemetryHandle,
  name: string,
  port: P,
  dbSystem: string,
  kind: string,
): P {
  const traced = Object.create(port) as Record<string, AnyFunction>;
  for (const method of methodNames(port)) {
    const operation = `${name}.${method}`;
    traced[method] = (...args: unknown[]) => tracedCall(handle, port, method, operation, dbSystem, kind, args);
  }
  return traced as P;
}

/**
 * `tracedPort` for a port that lives for one transaction (a store hands each body ports of its own): the wrappers
 * are made on first use, one per method, as a body calls a few methods of a few ports.
 */
function tracedTransactionPort<P extends object>(
  handle: TelemetryHandle,
  name: string,
  port: P,
  dbSystem: string,
  kind: string,
): P {
  const wrappers = new Map<string, AnyFunction>();
  return new Proxy(port, {
    get(target, method) {
      const value = Reflect.get(target, method);
      if (typeof value !== "function" || typeof method !== "string") return value;
      let wrapper = wrappers.get(method);
      if (!wrapper) {
        const operation = `${name}.${method}`;
        wrapper = (...args: unknown[]) => tracedCall(handle, target, method, operation, dbSystem, kind, args);
        wrappers.set(method, wrapper);
      }
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
  // A transaction's ports: wrapped on first use within the body, each port once.
  const ports = <P extends object>(target: P): P => {
    const wrapped = new Map<string, { of: object; traced: object }>();
    return new Proxy(target, {
      get(inner, prop) {
        const value = Reflect.get(inner, prop);
        if (typeof prop !== "string" || !PORTS.has(prop) || typeof value !== "object" || value === null) return value;
        const cached = wrapped.get(prop);
        if (cached?.of === value) return cached.traced;
        const traced = tracedTransactionPort(handle, prop, value, system, store.kind);
        wrapped.set(prop, { of: value, traced });
        return traced;
      },
    });
  };
  const call = (operation: string, run: () => unknown) => {
    const telemetry = handle.current;
    return telemetry === null ? run() : storeCall(telemetry, operation, system, store.kind, run);
  };

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
