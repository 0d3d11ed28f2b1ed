import type { FullStore } from "@latchkey/core";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { countersPort } from "./counters.ts";
import { memoryDatabase } from "./database.ts";
import { jwksPort } from "./jwks.ts";
import { sessionsPort } from "./sessions.ts";
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
  const db = memoryDatabase();

  // Transactions: the rows a transaction started from, restored when its body throws. Transactions run one at a
  // time (a chain of promises), so one never restores over another's writes. Counters and audit rows are not
  // part of it (counters count attempts whatever happens; events are emitted after a commit).
  const tables: Array<Map<string, unknown>> = [
    db.users,
    db.emails,
    db.usernames,
    db.sessions,
    db.sessionsByHash,
    db.accounts,
    db.verifications,
    db.apiKeys,
    db.apiKeysByHash,
    db.jwks,
  ];
  let queue: Promise<unknown> = Promise.resolve();
  const snapshot = () => tables.map((t) => new Map(t));
  const restore = (saved: ReturnType<typeof snapshot>) => {
    tables.forEach((t, i) => {
      t.clear();
      for (const [k, v] of saved[i]!) t.set(k, v);
    });
  };

  const store: FullStore = {
    kind: "memory",
    users: usersPort(db),
    sessions: sessionsPort(db),
    accounts: accountsPort(db),
    verifications: verificationsPort(db),
    counters: countersPort(db),
    apiKeys: apiKeysPort(db),
    jwks: jwksPort(db),
    audit: auditPort(db),
    transaction<T>(body: (tx: FullStore) => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        const saved = snapshot();
        try {
          return await body(store);
        } catch (error) {
          restore(saved);
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {},
    async close() {},
  };
  return store;
}
