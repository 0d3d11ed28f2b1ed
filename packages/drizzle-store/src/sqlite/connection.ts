import { createClient, type Client, type InStatement, type TransactionMode } from "@libsql/client";

/** Opens a libSQL client for a `file:` or `libsql://` URL; `concurrency` caps a `file:` client's connections. */
export function openSqlite(url: string, authToken?: string, concurrency?: number): Client {
  // A busy timeout lets another process's write transaction on the same file finish instead of failing at once.
  return createClient({
    url,
    ...(authToken === undefined ? {} : { authToken }),
    ...(concurrency === undefined ? {} : { concurrency }),
    timeout: 5000,
  });
}

/** What a store that opens its own `file:` database sets before its first statement (see docs/stores.md). */
const FILE_PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"] as const;

/**
 * The client a store opens for a URL. A `file:` database gets one connection, in WAL mode with synchronous=NORMAL:
 * `synchronous` is per connection (a pool would open more with the default, FULL), and the file client runs each
 * statement and batch synchronously anyway, so a second connection adds no throughput inside one process.
 */
export function openSqliteForStore(url: string, authToken?: string): Client {
  if (!/^file:/i.test(url)) return openSqlite(url, authToken);
  return afterSetup(openSqlite(url, authToken, 1), FILE_PRAGMAS.join("; "));
}

const GATED = new Set<PropertyKey>(["execute", "batch", "executeMultiple", "transaction", "migrate"]);

// Every statement waits for the setup script; a failed setup fails the calls waiting on it and is tried again.
function afterSetup(client: Client, script: string): Client {
  let ready: Promise<void> | null = null;
  const setUp = () =>
    (ready ??= client.executeMultiple(script).catch((error: unknown) => {
      ready = null;
      throw error;
    }));
  return new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!GATED.has(property)) return method.bind(target);
      return async (...args: unknown[]) => {
        await setUp();
        return method.apply(target, args);
      };
    },
  });
}

/**
 * The client as drizzle should see it: its `batch` (drizzle passes no mode, so libSQL would BEGIN DEFERRED) opens a
 * write transaction, BEGIN IMMEDIATE, which on a remote server also sends the batch straight to the primary.
 */
export function withWriteBatches(client: Client): Client {
  return new Proxy(client, {
    get(target, property) {
      if (property === "batch")
        return (statements: InStatement[], mode: TransactionMode = "write") => target.batch(statements, mode);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
