import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { describeUsers } from "./users.ts";
import { describeSessions } from "./sessions.ts";
import { describeAccounts } from "./accounts.ts";
import { describeVerifications } from "./verifications.ts";
import { describeCounters } from "./counters.ts";
import { describeApiKeys } from "./api-keys.ts";
import { describeJwks } from "./jwks.ts";
import { describeAudit } from "./audit.ts";
import { describeRoundTrips } from "./round-trip.ts";
import { describeTransactions } from "./transactions.ts";
import type { CounterStore, PluginPortName, PluginPorts } from "@latchkey/core";

/** A store known to have the plugin-owned port `K`. */
export type StoreWith<K extends PluginPortName> = Store & Pick<PluginPorts, K>;

const PLUGIN_PORTS: readonly PluginPortName[] = ["apiKeys", "jwks", "audit"];

export interface ConformanceOptions {
  /** Shown in test names, e.g. "memory", "postgres", "libsql". */
  name: string;
  /** A fresh or shared store; every test uses unique ids and emails, so one store may serve the whole suite. */
  createStore: () => Promise<Store> | Store;
  /**
   * The plugin-owned ports the store has (default all: `apiKeys`, `jwks`, `audit`). The sections of the others
   * are skipped with a printed notice; a test checks the store has exactly the ports listed.
   */
  pluginPorts?: readonly PluginPortName[];
  /** When set, the suite is skipped and the reason printed (e.g. no MONGODB_URL). */
  skip?: string | false;
}

/**
 * The suite every store runs: each port method, atomicity under parallel calls, and cascades.
 *
 * @example
 * import { runStoreConformance } from "@latchkey/store-conformance";
 * runStoreConformance({ name: "memory", createStore: () => memoryStore() });
 */
export function runStoreConformance(options: ConformanceOptions): void {
  const suite = options.skip ? describe.skip : describe;
  if (options.skip) console.warn(`[store-conformance] ${options.name}: SKIPPED (${options.skip})`);
  const ports = new Set(options.pluginPorts ?? PLUGIN_PORTS);
  for (const name of PLUGIN_PORTS)
    if (!ports.has(name) && !options.skip)
      console.warn(
        `[store-conformance] ${options.name}: the ${name} section is SKIPPED (the store has no ${name} port)`,
      );
  suite(`store conformance: ${options.name}`, () => {
    let store: Store;
    /** The store, checked to have the plugin-owned port `name` (its section runs only when it is listed). */
    const withPort =
      <K extends PluginPortName>(name: K) =>
      (): StoreWith<K> => {
        if (!store[name]) throw new Error(`${options.name} has no ${name} port; leave it out of pluginPorts`);
        return store as StoreWith<K>;
      };
    beforeAll(async () => {
      store = await options.createStore();
    });
    afterAll(async () => {
      await store?.close();
    });

    describeUsers(() => store);

    describeSessions(() => store);

    describeAccounts(() => store);

    describeVerifications(() => store);

    describeCounters(() => store);

    it("has exactly the plugin-owned ports listed in pluginPorts", () => {
      expect(PLUGIN_PORTS.filter((name) => store[name] !== undefined)).toEqual(
        PLUGIN_PORTS.filter((name) => ports.has(name)),
      );
    });

    if (ports.has("apiKeys")) describeApiKeys(withPort("apiKeys"));

    if (ports.has("jwks")) describeJwks(withPort("jwks"));

    describeRoundTrips(() => store);

    if (ports.has("audit")) describeAudit(withPort("audit"));

    describeTransactions(() => store);
  });
}

/**
 * The counters part of the suite alone, for a counter store that lives outside the database (Redis).
 *
 * @example
 * runCounterConformance({ name: "redis", createCounters: () => redisCounters({ url }) });
 */
export function runCounterConformance(options: {
  name: string;
  createCounters: () => Promise<CounterStore> | CounterStore;
}): void {
  describe(`counter conformance: ${options.name}`, () => {
    let counters: CounterStore;
    beforeAll(async () => {
      counters = await options.createCounters();
    });
    afterAll(async () => {
      await counters?.close?.();
    });
    describeCounters(() => ({ counters }) as Store);
  });
}
