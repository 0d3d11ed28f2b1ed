import { afterAll, beforeAll, describe } from "vitest";
import { counterBinding, type Store } from "@latchkey/core";
import { describeUsers } from "./users.ts";
import { describeSessions } from "./sessions.ts";
import { describeAccounts } from "./accounts.ts";
import { describeVerifications } from "./verifications.ts";
import { describeCounterSweep, describeCounters } from "./counters.ts";
import { describeApiKeys } from "./api-keys.ts";
import { describeJwks } from "./jwks.ts";
import { describeTwoFactor } from "./two-factor.ts";
import { describeAudit } from "./audit.ts";
import { describeSocialAccounts } from "./social-accounts.ts";
import { describePasskeys } from "./passkeys.ts";
import { describeOrganizations } from "./organizations.ts";
import { describeRoundTrips } from "./round-trip.ts";
import { describeTransactions } from "./transactions.ts";
import type { CounterStore } from "@latchkey/core";

export interface ConformanceOptions {
  /** Shown in test names, e.g. "memory", "postgres", "libsql". */
  name: string;
  /** A fresh or shared store; every test uses unique ids and emails, so one store may serve the whole suite. */
  createStore: () => Promise<Store> | Store;
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
  suite(`store conformance: ${options.name}`, () => {
    let store: Store;
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

    describeCounterSweep(() => store);

    describeApiKeys(() => store);

    describeJwks(() => store);

    describeTwoFactor(() => store);

    describeRoundTrips(() => store);

    describeAudit(() => store);

    describeSocialAccounts(() => store);

    describePasskeys(() => store);

    describeOrganizations(() => store);

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
      // What createAuth does with a counter store of its own (Redis): bind it to one app's secret and origin.
      counters.bind?.(counterBinding("counter-conformance-secret-0123456789abcdef", "https://conformance.example"));
    });
    afterAll(async () => {
      await counters?.close?.();
    });
    describeCounters(() => ({ counters }) as Store);
  });
}
