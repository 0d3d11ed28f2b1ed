import type { FullStorePorts } from "@latchkey/core";

const ended = () => Promise.reject(new Error("a transaction's store port was used after its transaction ended"));

/**
 * The ports one transaction body gets: `ports` (built once and shared by every transaction of the store or of the
 * connection, so each body does not prepare every statement again), each call refused once `live()` turns false.
 * A port a body kept past its commit (a promise it did not await) would otherwise run in whatever transaction
 * holds the shared ports then, another request's.
 *
 * @example
 * let open = true;
 * const tx = transactionPorts(shared, () => open);
 * await body(tx);
 * open = false;
 */
export function transactionPorts(ports: FullStorePorts, live: () => boolean): FullStorePorts {
  const out: Record<string, unknown> = {};
  for (const [name, port] of Object.entries(ports)) {
    if (typeof port !== "object" || port === null) {
      out[name] = port;
      continue;
    }
    out[name] = new Proxy(port, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const method = value as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => (live() ? method.apply(target, args) : ended());
      },
    });
  }
  return out as unknown as FullStorePorts;
}
