import { sweepStore, type CacheCarrier, type Duration, type FullStore, type SweepReport } from "@latchkey/core";
import { encodeInvalidations, parseDuration, sweepBatchSize } from "@latchkey/core/internal";
import { databaseKind, importMongoStore, redactSecretsIn, redactUrl } from "../migrate/migrate.ts";

/**
 * Options of `sweep`.
 *
 * @example
 * import type { SweepCliOptions } from "@latchkey/cli";
 * const options: SweepCliOptions = { auditRetention: "30d", deleteUnverifiedAfter: "7d" };
 */
export interface SweepCliOptions {
  /** Rows per statement (1..10000). Default 1000. */
  batchSize?: number;
  /** Audit rows older than this go; `false` keeps them. Default `"90d"`, as `auditLog({ retention })`. */
  auditRetention?: Duration | false;
  /** Users still unverified this long after sign-up go; absent keeps them (as `emailVerification.deleteUnverifiedAfter`). */
  deleteUnverifiedAfter?: Duration;
  /** The sweep's "now"; default the system clock. */
  now?: Date;
}

/** The environment variable `latchkey sweep` reads the database URL from when `--database` is absent. */
export const DATABASE_URL_VARIABLE = "LATCHKEY_DATABASE_URL";

/** Opens the store a URL names: `@latchkey/drizzle-store` for SQL, `@latchkey/mongo-store` for MongoDB. */
export async function openStore(url: string): Promise<FullStore> {
  const kind = databaseKind(url);
  if (kind === null)
    throw new TypeError(
      `unsupported database URL ${redactUrl(url)}: expected postgres://, postgresql://, file:, libsql:// or mongodb://`,
    );
  if (kind === "mongodb") {
    const { mongoStore } = (await importMongoStore()) as { mongoStore: (options: { url: string }) => FullStore };
    return mongoStore({ url });
  }
  const { openDrizzleStore } = await import("@latchkey/drizzle-store");
  return openDrizzleStore(url);
}

/**
 * Deletes every row past its life in the database at `url`, in batches (see `sweepStore` of `@latchkey/core`):
 * ended counters, expired sessions, codes, tokens and API keys, audit rows past `auditRetention`, and unverified
 * users past `deleteUnverifiedAfter` when given. Run it on a schedule; `auth.api.sweep()` does the same in process.
 *
 * @example
 * import { sweep } from "@latchkey/cli";
 * const report = await sweep("postgres://localhost/app", { auditRetention: "30d" }); // { counters: 812, ... }
 */
export async function sweep(url: string, options: SweepCliOptions = {}): Promise<SweepReport> {
  sweepBatchSize(options.batchSize); // a bad size is refused before the database is opened
  const retention = options.auditRetention ?? "90d";
  const retentionMs = retention === false ? null : parseDuration(retention, "auditRetention");
  const unverifiedMs =
    options.deleteUnverifiedAfter === undefined
      ? null
      : parseDuration(options.deleteUnverifiedAfter, "deleteUnverifiedAfter");
  const now = options.now ?? new Date();
  const store = await openStore(url);
  const publish = cachePublisher(store);
  try {
    const { apiKeys } = store;
    return await sweepStore(store, {
      now,
      batchSize: sweepBatchSize(options.batchSize, store.sweepBatchSize),
      auditBefore: retentionMs === null ? null : new Date(now.getTime() - retentionMs),
      unverifiedBefore: unverifiedMs === null ? null : new Date(now.getTime() - unverifiedMs),
      // From a shell no listeners run, so the port is called directly (no ApiKeyRevoked events).
      deleteExpiredApiKeys: async (at, limit) => {
        const removed = await apiKeys.deleteExpired(at, null, limit);
        await publish(removed.map((key) => ({ kind: "key" as const, id: key.id })));
        return removed.length;
      },
      clearExpiredRerolls: (at, limit) => apiKeys.deleteExpiredRerolls(at, limit),
      // A deleted user's sessions and keys may sit in the lookup caches of running instances: tell them.
      deleteUser: async (user) => {
        const deleted = await store.users.delete(user.id);
        if (deleted) await publish([{ kind: "user", id: user.id }]);
        return deleted;
      },
    });
  } finally {
    await store.close();
  }
}

/**
 * Publishes cache invalidations on the store's own carrier (PostgreSQL `LISTEN/NOTIFY`), so instances running
 * `createAuth({ cache })` drop what the sweep deleted at once instead of when their `ttl` ends. A store whose
 * carrier reaches only its own process (a libSQL file, the memory store) or that has none publishes nothing (run
 * `auth.api.sweep()` in the serving process there, or with a Redis carrier); a failed publication is reported
 * on stderr and the sweep goes on.
 */
export function cachePublisher(
  store: FullStore,
  command = "sweep",
): (list: Array<{ kind: "user" | "key" | "session"; id: string }>) => Promise<void> {
  let carrier: CacheCarrier | null = null;
  if (store.kind === "postgres") {
    try {
      carrier = store.cacheCarrier?.() ?? null;
    } catch (error) {
      process.stderr.write(`latchkey ${command}: cache invalidations not published: ${firstLine(error)}\n`);
    }
  }
  return async (list) => {
    if (carrier === null || list.length === 0) return;
    const target = carrier;
    try {
      await Promise.all(encodeInvalidations(list).map((payload) => target.publish(payload)));
    } catch (error) {
      process.stderr.write(
        `latchkey ${command}: a cache invalidation could not be published (caching instances drop it when their ttl ends): ${firstLine(error)}\n`,
      );
    }
  };
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message.split("\n")[0] : String(error));

const USAGE = `Usage: latchkey sweep [--database <url>] [--batch-size <n>] [--audit-retention <duration>|never]
                      [--delete-unverified-after <duration>]
  The URL defaults to $${DATABASE_URL_VARIABLE} (postgres://, postgresql://, file:, libsql://, mongodb://).
  Durations: "30s", "15m", "12h", "90d", "2w" or seconds. Audit rows are kept 90 days unless told otherwise.\n`;

export function argument(args: string[], name: string): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith(`--${name}=`)) return arg.slice(`--${name}=`.length) || null;
    if (arg === `--${name}`) return args[i + 1] ?? null;
  }
  return null;
}

const durationArg = (text: string): Duration => (/^\d+$/.test(text) ? Number(text) : (text as Duration));

/**
 * `latchkey sweep`: prints what it removed from each table; exit code 0 on success, 1 on failure, 2 on bad usage.
 *
 * @example
 * process.exitCode = await sweepCommand(["--database", "file:./auth.db"]);
 */
export async function sweepCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(USAGE);
    return 0;
  }
  const url = argument(args, "database") ?? (env[DATABASE_URL_VARIABLE] || null);
  if (url === null || databaseKind(url) === null) {
    if (url !== null) process.stderr.write(`latchkey sweep: unsupported database URL ${redactUrl(url)}\n`);
    else process.stderr.write(`latchkey sweep: no database: pass --database <url> or set ${DATABASE_URL_VARIABLE}\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  const batch = argument(args, "batch-size");
  const retention = argument(args, "audit-retention");
  const unverified = argument(args, "delete-unverified-after");
  try {
    const options: SweepCliOptions = {
      ...(batch === null ? {} : { batchSize: Number(batch) }),
      ...(retention === null ? {} : { auditRetention: retention === "never" ? false : durationArg(retention) }),
      ...(unverified === null ? {} : { deleteUnverifiedAfter: durationArg(unverified) }),
    };
    process.stdout.write(`Sweeping ${redactUrl(url)}\n`);
    const report = await sweep(url, options);
    for (const [table, removed] of Object.entries(report)) process.stdout.write(`${table}: ${removed} removed\n`);
    return 0;
  } catch (error) {
    // A driver's error may quote the URL or a part of it.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`latchkey sweep: ${redactSecretsIn(message, url)}\n`);
    return 1;
  }
}
