import type { AuthCore, AuthOptions, AuthPlugin } from "@latchkey/core";
import type { MiddlewareHandler } from "hono";
import { createTelemetry } from "./otel.ts";
import { requestTelemetry } from "./request-span.ts";
import { tracedCounters, tracedStore } from "./traced-store.ts";
import { countEvents } from "./event-metrics.ts";

/** What `createAuth` needs from the telemetry: traced options, the request middleware, the event counters. */
export interface Instrumentation<O> {
  options: O;
  middleware(mountPrefix: (routePath: string) => string): MiddlewareHandler;
  countEvents(core: AuthCore): void;
}

/**
 * Wires OpenTelemetry into one `createAuth`: the store (and separate counters) traced, a request middleware, and
 * counters fed by the events. All of it is inert until `@opentelemetry/api` loads, and with `telemetry: false`.
 */
export function instrument<P extends readonly AuthPlugin[], O extends AuthOptions<P> & { telemetry?: boolean }>(
  options: O,
): Instrumentation<O> {
  const handle = createTelemetry(options.telemetry !== false);
  const { database, counters } = options;
  // Invalid values are left for createAuth's validation to name.
  const traced =
    options.telemetry === false || typeof database !== "object" || database === null
      ? options
      : {
          ...options,
          database: tracedStore(database, handle),
          ...(typeof counters === "object" && counters !== null ? { counters: tracedCounters(counters, handle) } : {}),
        };
  return {
    options: traced,
    middleware: (mountPrefix) => requestTelemetry(handle, mountPrefix),
    countEvents: (core) => {
      if (options.telemetry !== false) countEvents(core, handle);
    },
  };
}
