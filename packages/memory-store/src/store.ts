import type { FullStore, FullStorePorts } from "@latchkey/core";
import { inProcessCacheBus } from "@latchkey/core/internal";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { countersPort } from "./counters.ts";
import { memoryDatabase, type MemoryDatabase } from "./database.ts";
import { jwksPort } from "./jwks.ts";
import { twoFactorPort } from "./two-factor.ts";
import { trackedDatabase, UndoLog } from "./undo-log.ts";
import { sessionsPort } from "./sessions.ts";
import { socialAccountsPort } from "./social-accounts.ts";
import { passkeysPort } from "./passkeys.ts";
import { organizationsPort } from "./organizations.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";

/**
 * An in-memory store: for tests and local demos only (data dies with the process).
 *
 * @example
 * import { memoryStore } from "@latchkey/memory-store";
 * const auth = createAuth({ secret, database: memoryStore(), baseUrl: "http://localhost:3000", environment: "development" });
 */
export function memoryStore(): FullStore {
  return memoryStoreOver(memoryDatabase());
}

/** The store over a given database: `memoryStore` with a fresh one; tests pass their own to look at its tables. */
export function memoryStoreOver(db: MemoryDatabase): FullStore {
  // Every auth instance over this store hears every other's cache invalidations (`createAuth({ cache })`).
  const cacheBus = inProcessCacheBus();

  // Transactions run one at a time (a chain of promises); each sees the database through an undo log of its own
  // writes, and a body that throws takes back only those (see undo-log.ts). Writes made outside a transaction
  // while one is open are never undone by it.
  let queue: Promise<unknown> = Promise.resolve();
  const portsOver = (data: MemoryDatabase): FullStorePorts => ({
    users: usersPort(data),
    sessions: sessionsPort(data),
    accounts: accountsPort(data),
    verifications: verificationsPort(data),
    counters: countersPort(data),
    apiKeys: apiKeysPort(data),
    jwks: jwksPort(data),
    audit: auditPort(data),
    twoFactor: twoFactorPort(data),
    socialAccounts: socialAccountsPort(data),
    passkeys: passkeysPort(data),
    organizations: organizationsPort(data),
  });

  const store: FullStore = {
    kind: "memory",
    ...portsOver(db),
    transaction<T>(body: (tx: FullStore) => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        const log = new UndoLog();
        const tx: FullStore = { ...store, ...portsOver(trackedDatabase(db, log)) };
        try {
          return await body(tx);
        } catch (error) {
          log.undo();
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {},
    async close() {},
    cacheCarrier: () => cacheBus.carrier(),
  };
  return store;
}
