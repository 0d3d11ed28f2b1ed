// The worst event-loop delay while each kind of row past its life is swept: N rows (100,000 by default) of ONE kind
// (expired sessions, codes, API keys, rerolled key values, ended counters, old audit rows) in a fresh libSQL file or
// PostgreSQL database (a throwaway cluster, as the bench starts one), then the sweep with `monitorEventLoopDelay`
// watching: once through the store port without a limit (one statement, what the sweep avoids) and once through
// `auth.api.sweep()` (batches with a turn of the event loop between two). A request arriving during the sweep waits
// at most that long. Prints a markdown table.
//   node --import tsx src/micro/sweep-event-loop.ts [--n=100000] [--store=libsql,postgres] [--kind=sessions,...]
//     [--batch-size=n (default: the store's own, 200 on a libSQL file, else 1000)] [--audit-log=on]
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { apiKeys, auditLog, createAuthCore, type FullStore } from "@latchkey/core";
import * as pgStore from "@latchkey/drizzle-store/postgres";
import * as sqliteStore from "@latchkey/drizzle-store/sqlite";
import { type BenchPostgres, startBenchPostgres } from "../harness/postgres.ts";
import { load, type SchemaTable, type SeedTarget, writerFor } from "../scale/seed.ts";
import {
  parseSweepArgs,
  type SweepKind,
  type SweepMeasurement,
  type SweepStore,
  SWEEP_USER_ID,
  sweepRows,
  sweepTable,
} from "./sweep-table.ts";

const args = parseSweepArgs(process.argv.slice(2));
const progress = (line: string) => process.stderr.write(`${line}\n`);

/** A fresh, migrated, seeded database and how to open the store on it. */
interface Seeded {
  open(): FullStore;
  drop(): Promise<void>;
}

const TABLE_OF: Record<SweepKind, keyof typeof sqliteStore.schema & keyof typeof pgStore.schema> = {
  sessions: "sessions",
  verifications: "verifications",
  apiKeys: "apiKeys",
  apiKeyRerolls: "apiKeys",
  counters: "counters",
  auditEvents: "auditEvents",
};

async function seed(target: SeedTarget, kind: SweepKind, now: number): Promise<void> {
  const schema = target.dialect === "sqlite" ? sqliteStore.schema : pgStore.schema;
  const writer = writerFor(target);
  try {
    const past = new Date(now - 86_400_000);
    const user = {
      id: SWEEP_USER_ID,
      email: "sweep@example.com",
      emailVerified: true,
      name: null,
      image: null,
      username: null,
      metadata: {},
      appMetadata: {},
      createdAt: past,
      updatedAt: past,
      banned: false,
      banReason: null,
      banExpires: null,
    };
    await writer.insert(schema.users, [user]);
    const table: SchemaTable = schema[TABLE_OF[kind]];
    await load(writer, table, args.n, (from, to) => sweepRows(kind, from, to, now));
    await writer.finish(["users", tableName(kind)]);
  } finally {
    await writer.close();
  }
}

const tableName = (kind: SweepKind) =>
  ({
    sessions: "sessions",
    verifications: "verifications",
    apiKeys: "api_keys",
    apiKeyRerolls: "api_keys",
    counters: "counters",
    auditEvents: "audit_events",
  })[kind];

let postgres = null as BenchPostgres | null;
let databases = 0;

async function fresh(store: SweepStore, kind: SweepKind, now: number): Promise<Seeded> {
  if (store === "libsql") {
    const dir = await mkdtemp(join(tmpdir(), "latchkey-sweep-"));
    const file = join(dir, "sweep.db");
    await sqliteStore.migrateDatabase(`file:${file}`);
    await seed({ dialect: "sqlite", file }, kind, now);
    return {
      open: () => sqliteStore.drizzleStore({ url: `file:${file}` }),
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  postgres ??= await startBenchPostgres(null);
  const cluster = postgres;
  const name = `sweep_${++databases}`;
  const url = await cluster.createDatabase(name);
  await pgStore.migrateDatabase(url);
  await seed({ dialect: "postgres", url }, kind, now);
  return { open: () => pgStore.drizzleStore({ url }), drop: async () => undefined };
}

/** The store port that removes every row of the kind in one statement (no limit). */
async function oneStatement(store: FullStore, kind: SweepKind, now: Date): Promise<number> {
  switch (kind) {
    case "sessions":
      return store.sessions.deleteExpired(now);
    case "verifications":
      return store.verifications.deleteExpired(now);
    case "counters":
      return store.counters.deleteExpired(now.getTime());
    case "apiKeys":
      return (await store.apiKeys.deleteExpired(now, null)).length;
    case "apiKeyRerolls":
      return store.apiKeys.deleteExpiredRerolls(now);
    case "auditEvents":
      return store.audit.deleteBefore(new Date(now.getTime() - 90 * 86_400_000));
  }
}

/**
 * `auth.api.sweep()` with API keys installed, and the audit log (default retention, 90 days) for the audit kind or
 * with `--audit-log=on` (then each swept key writes an `ApiKeyRevoked` row: one insert per key).
 */
async function batched(store: FullStore, kind: SweepKind): Promise<number> {
  const withAudit = kind === "auditEvents" || args.auditLog;
  const core = createAuthCore({
    secret: "bench-secret-0123456789abcdefghijklmnop",
    baseUrl: "http://localhost",
    database: store,
    plugins: withAudit ? [apiKeys(), auditLog()] : [apiKeys()],
  });
  return (await core.api.sweep(args.batchSize === null ? {} : { batchSize: args.batchSize }))[kind];
}

/** What the witnesses saw while `work` ran. */
interface Watched {
  result: number;
  wallMs: number;
  histogramMaxMs: number;
  intervalLateMs: number;
  ownCpuLateMs: number;
}

/** Runs `work` with both event-loop witnesses on. */
async function watched(work: () => Promise<number>): Promise<Watched> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // A second witness (the histogram can miss a block that starts in the tick it was enabled): how late a 5 ms
  // interval ran at worst, and how much of that lateness this process's CPU time covers.
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let intervalLate = 0;
  let ownCpuLate = 0;
  const ticker = setInterval(() => {
    const t = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const late = t - last - 5;
    intervalLate = Math.max(intervalLate, late);
    ownCpuLate = Math.max(ownCpuLate, Math.min(late, (cpu.user + cpu.system) / 1000));
    last = t;
    lastCpu = process.cpuUsage();
  }, 5);
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  // The histogram records a delay when its timer finally runs: give it that turn before reading it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  loop.disable();
  clearInterval(ticker);
  return { result, wallMs, histogramMaxMs: loop.max / 1e6, intervalLateMs: intervalLate, ownCpuLateMs: ownCpuLate };
}

function report(m: SweepMeasurement): SweepMeasurement {
  progress(`  ${sweepTable([m]).split("\n")[2]}`);
  return m;
}

async function measure(
  storeName: SweepStore,
  kind: SweepKind,
  methodOf: string | ((store: FullStore) => string),
  sweep: (store: FullStore, now: Date) => Promise<number>,
): Promise<SweepMeasurement> {
  const now = Date.now();
  const seeded = await fresh(storeName, kind, now);
  const store = seeded.open();
  const method = typeof methodOf === "string" ? methodOf : methodOf(store);
  try {
    // One query first, so the sweep does not pay for opening the connection or the file.
    await store.users.findById(SWEEP_USER_ID);
    const { result: removed, ...seen } = await watched(() => sweep(store, new Date(now)));
    if (removed !== args.n) throw new Error(`${storeName} ${kind} ${method}: removed ${removed} of ${args.n} rows`);
    return report({ store: storeName, kind, method, removed, ...seen });
  } finally {
    await store.close();
    await seeded.drop();
  }
}

/** The witnesses over a second in which this process does nothing: what the machine alone adds. */
async function idle(storeName: SweepStore): Promise<SweepMeasurement> {
  const { result, ...seen } = await watched(() => new Promise((resolve) => setTimeout(() => resolve(0), 1000)));
  return report({ store: storeName, kind: "idle", method: "1 s idle", removed: result, ...seen });
}

// Interrupted: the throwaway cluster goes too.
process.once("SIGINT", () => {
  void (postgres?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
});

const measurements: SweepMeasurement[] = [];
const started = performance.now();
const load1 = loadavg()[0] ?? 0;
try {
  for (const storeName of args.stores) {
    measurements.push(await idle(storeName));
    for (const kind of args.kinds) {
      measurements.push(
        await measure(storeName, kind, "one statement", (store, now) => oneStatement(store, kind, now)),
      );
      measurements.push(
        await measure(
          storeName,
          kind,
          (s) => `auth.api.sweep(), batches of ${(args.batchSize ?? s.sweepBatchSize ?? 1000).toLocaleString("en-US")}`,
          (s) => batched(s, kind),
        ),
      );
    }
  }
} finally {
  await postgres?.stop();
}
const load2 = loadavg()[0] ?? 0;
console.log(
  `Sweeps of ${args.n.toLocaleString("en-US")} rows of one kind each (audit log ${args.auditLog ? "on for every kind" : "on for the audit rows only"}), Node ${process.version}${postgres ? `, PostgreSQL ${postgres.version}` : ""}; load average ${load1.toFixed(1)} at the start, ${load2.toFixed(1)} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all (seeding included).\n`,
);
console.log(sweepTable(measurements));
