import type { JsonObject, Permissions } from "./records.ts";
import type { CacheCarrier } from "./cache-carrier.ts";
import type { AccountStore, CounterStore, SessionStore, UserStore, VerificationStore } from "./core-stores.ts";
import type { ApiKeyStore } from "./api-key-store.ts";
import type { OrganizationStore } from "./organization-store.ts";
import type { AuditStore, JwkStore, PasskeyStore, SocialAccountStore, TwoFactorStore } from "./plugin-stores.ts";

export type * from "./core-stores.ts";
export type * from "./api-key-store.ts";
export type * from "./organization-store.ts";
export type * from "./plugin-stores.ts";

/** The ports every store has: Latchkey's own flows (sign-up, sessions, codes, rate limits) need all of them. */
export interface CorePorts {
  users: UserStore;
  sessions: SessionStore;
  accounts: AccountStore;
  verifications: VerificationStore;
  counters: CounterStore;
}

/**
 * The ports only a plugin needs: `apiKeys()` needs `apiKeys`, `jwt()` needs `jwks` (unless it has a
 * `signerFactory`), `auditLog()` needs `audit`, `twoFactor()` needs `twoFactor`, `oauth()` needs `socialAccounts`, `passkeys()` needs `passkeys`, `organizations()` needs `organizations`. A
 * store may leave out those of features it does not support;
 * `createAuth` then refuses to install the plugin, naming the missing port.
 */
export interface PluginPorts {
  apiKeys: ApiKeyStore;
  jwks: JwkStore;
  audit: AuditStore;
  twoFactor: TwoFactorStore;
  socialAccounts: SocialAccountStore;
  passkeys: PasskeyStore;
  organizations: OrganizationStore;
}

/** `"apiKeys" | "jwks" | "audit" | "twoFactor" | "socialAccounts" | "passkeys" | "organizations"`: what a plugin lists in its `requires`. */
export type PluginPortName = keyof PluginPorts;

/** The ports of a store: what a transaction body sees. Plugin-owned ports are optional. */
export interface StorePorts extends CorePorts, Partial<PluginPorts> {}

/**
 * Everything Latchkey persists. Every method is domain-shaped; every store passes `@latchkey/store-conformance`
 * (the parts for plugin ports only when the store has them).
 *
 * @example
 * // A store without API keys, JWKS or audit rows: fine until a plugin that needs one of them is installed.
 * const store: Store = { kind: "my-store", users, sessions, accounts, verifications, counters, transaction, ping, close };
 */
export interface Store extends StorePorts {
  readonly kind: string;
  /**
   * Rows a sweep removes per statement on this store when the caller gives no `batchSize`; absent: 1000. A store
   * whose statements run on the process's own thread (a libSQL `file:` database) answers less, so that one batch
   * never holds the event loop for long.
   */
  readonly sweepBatchSize?: number;
  /**
   * Runs `body` against ports whose writes commit together or not at all: a database transaction (PostgreSQL,
   * SQLite/libSQL, MongoDB with a replica set) or the store's equivalent. A throw from `body` rolls back and is
   * rethrown. Keep bodies short: no password hashing, no email, no waiting on anything but the ports.
   */
  transaction<T>(body: (tx: StorePorts) => Promise<T>): Promise<T>;
  /** One cheap round trip to the database (health checks); throws when it does not answer. */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
  /**
   * A new carrier of cache invalidations between every instance over this database (`createAuth({ cache })`):
   * PostgreSQL `LISTEN/NOTIFY`, or in-process where one process owns the data (memory, a libSQL file). Absent
   * when the store has none (D1).
   */
  cacheCarrier?(): CacheCarrier;
}

/** Every port, plugin-owned ones included. */
export interface FullStorePorts extends CorePorts, PluginPorts {}

/**
 * A store with every port, so every plugin can be installed on it: what the bundled stores (memory, Drizzle,
 * MongoDB) return.
 *
 * @example
 * import type { FullStore } from "@latchkey/core";
 * const store: FullStore = memoryStore();
 * await store.apiKeys.findById(id); // no undefined check needed
 */
export interface FullStore extends Store {
  apiKeys: ApiKeyStore;
  jwks: JwkStore;
  audit: AuditStore;
  twoFactor: TwoFactorStore;
  socialAccounts: SocialAccountStore;
  passkeys: PasskeyStore;
  organizations: OrganizationStore;
  transaction<T>(body: (tx: FullStorePorts) => Promise<T>): Promise<T>;
}

export type { JsonObject, Permissions };
