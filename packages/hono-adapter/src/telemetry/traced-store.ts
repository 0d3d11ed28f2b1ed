import type { Store, StorePorts } from "@latchkey/core";
import { untracedHere, withSpan, type Telemetry, type TelemetryHandle } from "./otel.ts";

/** The ports a store call can go through, as named in span names (`latchkey.store users.findByEmail`). */
const PORTS = new Set([
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
]);

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
 * A port whose every method call is a store span (`<name>.<method>`). Not a Proxy that every call crosses: a plain
 * object whose prototype is one, so only the first read of each method reaches the trap, which puts the method's
 * wrapper on the object itself (later reads find it there); what is not a function reads through every time. A
 * port that resolves its methods only when asked (a Proxy) is covered alike. Each wrapper reads the method from the
 * port at call time, so a method patched afterwards is the one called, and goes straight through (no span, no
 * closure) while no telemetry is loaded or nothing would record a span (see `untracedHere`).
 */
function tracedPort<P extends object>(
  handle: TelemetryHandle,
  name: string,
  port: P,
  dbSystem: string,
  kind: string,
): P {
  const traced: Record<string, AnyFunction> = Object.create(
    new Proxy(port, {
      // Also when read through an object that inherits from this one (a Proxy over it passing itself as receiver).
      get(target, method) {
        const value = Reflect.get(target, method);
        if (typeof value !== "function" || typeof method !== "string") return value;
        const operation = `${name}.${method}`;
        const wrapper = (...args: unknown[]) => tracedCall(handle, target, method, operation, dbSystem, kind, args);
        Object.defineProperty(traced, method, { value: wrapper, writable: true, enumerable: true, configurable: true });
        return wrapper;
      },
    }),
  );
  return traced as P;
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
 * message can quote the values). Calls go straight through while no telemetry is loaded, or while nothing would
 * record a span. A port method is read from the port at call time (a method patched afterwards is the one called),
 * and the store's other properties when they are asked for, so the store object itself stays the one to patch or
 * close.
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
  // A transaction's ports (a store may hand each body ports of its own): a plain copy of what the store handed the
  // body (a body spreads it into its context), each port traced.
  const ports = <P extends object>(target: P): P => {
    const out = { ...target } as Record<string, unknown>;
    for (const name of PORTS) {
      const value = out[name];
      if (typeof value === "object" && value !== null) out[name] = tracedPort(handle, name, value, system, store.kind);
    }
    return out as P;
  };
  const call = (operation: string, run: () => unknown) => {
    const telemetry = handle.current;
    return telemetry === null ? run() : storeCall(telemetry, operation, system, store.kind, run);
  };

  // A transaction that starts where nothing would record a span hands its body the store's own ports: no span
  // would wrap their calls, and tracing each transaction's ports costs a wrapper per port and method on every
  // transaction. (A tracer registered while such a body runs traces the next transaction.)
  const transaction = <T>(target: S, body: (tx: StorePorts) => Promise<T>): Promise<T> => {
    const telemetry = handle.current;
    if (telemetry === null || untracedHere(telemetry)) return target.transaction(body);
    return storeCall(telemetry, "transaction", system, store.kind, () =>
      target.transaction((tx) => body(ports(tx))),
    ) as Promise<T>;
  };

  return new Proxy(store, {
    get(target, prop) {
      if (prop === "transaction") return <T>(body: (tx: StorePorts) => Promise<T>) => transaction(target, body);
      if (prop === "ping") return () => call("ping", () => target.ping());
      const value = Reflect.get(target, prop);
      if (typeof prop === "string" && PORTS.has(prop) && typeof value === "object" && value !== null)
        return port(prop, value);
      return typeof value === "function" ? (value as AnyFunction).bind(target) : value;
    },
  });
}
