import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, cpus as osCpus } from "node:os";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { measure, type LoadPlan, type Measurement } from "./harness/load.ts";
import {
  type BetterAuthVariant,
  hasTaskset,
  pinSelf,
  startServer,
  waitForIdle,
  type ServerProcess,
} from "./harness/process.ts";
import {
  cpuRatio,
  markdownDrivers,
  markdownMemory,
  markdownScale,
  markdownSizes,
  markdownSweeps,
  baselineColumns,
  markdownTable,
  MIN_OPS,
  measuredPairs,
  medianMeasurement,
  progressLine,
  ratio,
  type DriverRow,
  type MemoryResult,
  type ScaleResult,
  type ScenarioResult,
  type SizeResult,
  type SweepResult,
} from "./harness/report.ts";
import { startBenchPostgres, type BenchPostgres } from "./harness/postgres.ts";
import { prepareBaseline, type Baseline } from "./harness/baseline.ts";
import { describeEstimate, estimateRun } from "./harness/estimate.ts";
import { explainHotStatements } from "./scale/explain.ts";
import { sizesFor } from "./scale/rows.ts";
import { seedBetterAuthScale, seedLatchkeyScale, type SeedTarget } from "./scale/seed.ts";
import { betterAuthPlugins, betterAuthTables } from "./servers/better-auth-db.ts";
import { SCENARIOS, type Feature, type Scenario } from "./harness/scenarios.ts";
import { collectGarbage, seed, type Seed } from "./harness/seed.ts";
import { exhausted, newPool, nextPoolSize, poolNeed, type Pool, type PoolItem, type PoolKind } from "./harness/pool.ts";
import { measureWorkers } from "./harness/workers.ts";
import { SOCIAL_SUBJECTS, signInSubjects, socialFlows } from "./harness/social.ts";
import { CALLBACK_PATH } from "./servers/social-client.ts";
import { hasDrizzleStore, latchkeyPlugins } from "./servers/latchkey-features.ts";
import type { ServerFeatures, StoreKind, SweepTiming } from "./servers/shell.ts";
import { summarizeProfile } from "./harness/profile.ts";
import { markdownHashCap, measureHashCap, type HashCapResult } from "./hash-cap/measure.ts";
import { markdownDeviceFlood, measureDeviceFlood, type DeviceFloodRow } from "./hash-cap/device-flood.ts";

// `pnpm bench [--quick] [--repeat=N] [--baseline=<git rev>] [--plan] [--only=id,id] [--store=memory,libsql,postgres] [--warmup=ms] [--measure=ms] [--no-workers] [--no-pin]
//             [--scale | --scale-only] [--scale-sizes=1000,1000000]
//             [--profile=<scenario id> [--profile-impl=latchkey|better-auth] [--profile-cache] [--profile-send-limits]
//              [--scale-users=n]]`
const args = new Map(
  process.argv.slice(2).map((a) => {
    const [key, value] = a.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"] as const;
  }),
);
const quick = args.has("quick");
// `--baseline=<rev>`: this checkout's Latchkey against that revision's (built once in a worktree of its own,
// harness/baseline.ts), alternating in every repeat; no Better Auth, no floor, hash cap, variants, scale or Workers.
const baselineRev = args.get("baseline") ?? null;
if (baselineRev === "true") throw new Error("--baseline needs a git revision: --baseline=<rev>");
const WARMUP_MS = Number(args.get("warmup") ?? (quick ? 1_000 : 2_000));
const MEASURE_MS = Number(args.get("measure") ?? (quick ? 2_000 : 5_000));
const CONNECTIONS = Number(args.get("connections") ?? 32);
// Windows per scenario and library, the libraries interleaved: 5 by default, 1 in the quick mode (a smoke run).
const REPEAT = Number(args.get("repeat") ?? (quick ? 1 : 5));
if (!Number.isInteger(REPEAT) || REPEAT < 1)
  throw new Error(`--repeat must be a positive integer, not ${args.get("repeat")}`);
const USERS = 32;
const only = args.get("only")?.split(",") ?? null;
const stores = (args.get("store")?.split(",") ?? ["memory", "libsql", "postgres"]) as StoreKind[];
const scaleOnly = args.has("scale-only");
const scale = args.has("scale") || scaleOnly;
const [SMALL, LARGE] = (args.get("scale-sizes") ?? "1000,1000000").split(",").map(Number) as [number, number];
const SCALE_IDS = ["get-session", "api-key-verify-unlimited", "api-key-verify-quota", "token", "otp-round-trip"];
// Tuned Better Auth configurations, each its own rows next to the defaults: on in the full run, off in the quick one.
const variantsOn = !baselineRev && (args.has("variants") || (!quick && !args.has("no-variants")));
if (baselineRev && (args.has("scale") || args.has("scale-only") || args.has("profile")))
  throw new Error("--baseline runs the standard scenarios only (no --scale, --scale-only or --profile)");
interface Variant {
  /** What the rows' ids add to the scenario's (`<scenario>+<id>`). */
  id: string;
  /** A tuned Better Auth; absent: Better Auth's defaults. */
  variant?: BetterAuthVariant;
  /** Latchkey runs with its lookup cache on (`cache: {}`) in this configuration. */
  latchkeyCache?: boolean;
  /** Latchkey runs with its email send limits on (its defaults; the standard rows run them off). */
  latchkeySendLimits?: boolean;
  label: string;
  ids: string[];
  /** The store work per request with the variant, by scenario id. */
  work: Record<string, string>;
}
const JWT_WORK =
  "1 read (session joined to user; signing key cached) vs 2 reads (session joined to user where its adapter joins, jwks), plus 1 Ed25519 signature each";
const VARIANTS: Variant[] = [
  {
    id: "joins",
    variant: "joins",
    label: "Better Auth with advanced.database.joins: true",
    ids: ["get-session", "get-session-jwt", "token"],
    work: {
      "get-session": "1 read (session joined to user) vs 1 read (session joined to user where its adapter joins)",
      "get-session-jwt": JWT_WORK,
      token: JWT_WORK,
    },
  },
  {
    id: "cookie-cache",
    variant: "cookie-cache",
    label: "Better Auth with session.cookieCache on (maxAge 1 h; a revoked session keeps working until it ends)",
    ids: ["get-session"],
    work: {
      "get-session": "1 read (session joined to user) vs 0 reads (the signed session_data cookie, checked by HMAC)",
    },
  },
  {
    id: "cookie-cache",
    variant: "cookie-cache",
    latchkeyCache: true,
    label:
      "Latchkey with cache on (every revocation reaches every instance) vs Better Auth with session.cookieCache on (a revoked session keeps working until it ends)",
    ids: ["get-session", "api-key-verify-unlimited", "api-key-verify-quota"],
    work: {
      "get-session":
        "0 reads (in-process cache, invalidated on every change) vs 0 reads (the signed session_data cookie)",
      "api-key-verify-unlimited":
        "0 reads (in-process cache; lastUsedAt written at most once a minute) vs 1 read + 2 writes (the cookie cache does not cover keys)",
      "api-key-verify-quota": "1 conditional write (the read cached) vs 1 read + 3 writes",
    },
  },
  {
    id: "argon2id",
    variant: "argon2id",
    label: "Better Auth hashing with argon2id m=19456 KiB t=2 p=1, as Latchkey",
    ids: ["sign-in"],
    work: {
      "sign-in":
        "user and credential-account reads, 1 argon2id verify (the same parameters) and 1 session insert on each side",
    },
  },
  {
    id: "send-limits",
    latchkeySendLimits: true,
    label:
      "Latchkey with its email send limits on (its defaults: a cooldown and a budget per recipient) vs Better Auth's defaults with its rate limiter off",
    ids: ["otp-round-trip"],
    work: {
      "otp-round-trip":
        "each side as in the standard row; Latchkey also counts the send against the recipient's cooldown and budget (1 more write)",
    },
  },
];
const profileScenario = args.get("profile") ?? null;
const profileImpl = (args.get("profile-impl") ?? "latchkey") as "latchkey" | "better-auth";

const benchDir = fileURLToPath(new URL("..", import.meta.url));
const tmpDir = `${benchDir}.tmp`;
const startedAt = Date.now();
const log = (line: string) => process.stdout.write(`${line}\n`);

// The load generator (this process) on CPU 0, every server on the remaining CPUs: autocannon and the server
// under test never compete for one core, and both servers get the same cores.
const cores = osCpus().length;
const pinning = !args.has("no-pin") && hasTaskset() && cores >= 2;
const serverCpus = pinning ? (cores === 2 ? "1" : `1-${cores - 1}`) : null;
if (pinning) pinSelf("0");

function machine(): Record<string, string> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? "unknown";
  const pkg = (path: string) => (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: benchDir, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpu: `${model} (${cores} cores)`,
    memory: `${Math.round(Number(/MemTotal:\s*(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024 / 1024)} GiB`,
    node: process.version,
    "latchkey commit": commit,
    "better-auth": pkg(`${benchDir}node_modules/better-auth/package.json`),
    autocannon: pkg(`${benchDir}node_modules/autocannon/package.json`),
    pinning: pinning ? `load generator on CPU 0, servers on CPU ${serverCpus}` : "none (taskset missing or 1 core)",
    "load average at start": loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
    load: `${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up + ${MEASURE_MS} ms measured window per scenario and server (twice both for password sign-in and OTP), ${REPEAT} window${REPEAT === 1 ? "" : "s"} per scenario and server, the two libraries back to back in each repeat and the order alternating`,
  };
}

/** Each side's database driver per store, as its server describes it: printed above the results table. */
const drivers: DriverRow[] = [];

let postgres: BenchPostgres | null = null;
/** One throwaway cluster for the whole run, started on first use; each server gets a fresh database on it. */
/** The report rows of scenarios a store does not run: no measurement, the reason instead. */
function notRun(
  scenarios: Scenario[],
  store: StoreKind,
  target: keyof Scenario["target"],
  skipped: string,
): ScenarioResult[] {
  return scenarios.map((s) => ({
    id: s.id,
    title: s.title,
    store,
    unit: s.unit,
    latchkey: null,
    betterAuth: null,
    target: s.target[target],
    floorTarget: null,
    skipped,
  }));
}

async function cluster(): Promise<BenchPostgres> {
  if (!postgres) {
    postgres = await startBenchPostgres(null);
    log(`  PostgreSQL ${postgres.version} started (${postgres.settings})`);
  }
  return postgres;
}

// BENCH_FIRST_PORT lets two checkouts profile side by side on one machine.
let nextPort = Number(process.env.BENCH_FIRST_PORT ?? 4101);
async function start(
  impl: "latchkey" | "better-auth" | "floor",
  store: StoreKind,
  jwtHeader: boolean,
  profileDir?: string,
  variant?: BetterAuthVariant,
  latchkey: {
    cache?: boolean;
    sendLimits?: boolean;
    secondFactor?: boolean;
    /** A port reserved beforehand (the social configuration names both servers' callbacks to its provider). */
    port?: number;
    /** The social configuration: the provider's issuer (both servers install their OpenID provider plugin). */
    oidcIssuer?: string;
  } = {},
  baseline?: Baseline,
): Promise<ServerProcess> {
  const port = latchkey.port ?? nextPort++;
  const name = baseline ? "baseline" : impl;
  const dbFile = store === "libsql" ? `${tmpDir}/${name}-${port}.db` : undefined;
  if (dbFile) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbFile}${suffix}`, { force: true });
  const dbUrl =
    store === "postgres"
      ? await (await cluster()).createDatabase(`${baseline ? "bl" : impl === "latchkey" ? "lk" : "ba"}_${port}`)
      : undefined;
  return startServer({
    impl,
    port,
    store,
    jwtHeader,
    cpus: serverCpus,
    ...(dbFile ? { dbFile } : {}),
    ...(dbUrl ? { dbUrl } : {}),
    ...(profileDir ? { cpuProfileDir: profileDir } : {}),
    ...(variant && impl === "better-auth" ? { variant } : {}),
    ...(latchkey.cache && impl === "latchkey" ? { latchkeyCache: true } : {}),
    ...(latchkey.sendLimits && impl === "latchkey" ? { latchkeySendLimits: true } : {}),
    // Not Latchkey's alone: both servers of the second-factor configuration install the plugins.
    ...(latchkey.secondFactor ? { secondFactor: true } : {}),
    ...(latchkey.oidcIssuer ? { env: { BENCH_OIDC_ISSUER: latchkey.oidcIssuer } } : {}),
    ...(baseline ? { baseline: { benchDir: baseline.benchDir, entry: baseline.entry } } : {}),
  });
}

const targetOf = (server: ServerProcess): SeedTarget =>
  server.spec.store === "postgres"
    ? { dialect: "postgres", url: server.spec.dbUrl as string }
    : { dialect: "sqlite", file: server.spec.dbFile as string };

/** Bulk-loads `users` users (and sessions, keys, audit rows in proportion) into both servers' databases. */
async function bulkSeed(lk: ServerProcess, ba: ServerProcess, users: number): Promise<string> {
  const sizes = sizesFor(users);
  const baTables = betterAuthTables({
    emailAndPassword: { enabled: true },
    plugins: betterAuthPlugins(false, () => undefined),
  } as never).tables;
  // Both at once: on PostgreSQL one library's batch is inserted while the other's is built.
  const [lkReport, baReport] = await Promise.all([
    seedLatchkeyScale(targetOf(lk), sizes, Date.now(), log),
    seedBetterAuthScale(targetOf(ba), baTables, sizes, Date.now(), log),
  ]);
  return `Latchkey ${(lkReport.ms / 1000).toFixed(0)} s, Better Auth ${(baReport.ms / 1000).toFixed(0)} s`;
}

async function features(server: ServerProcess): Promise<ServerFeatures> {
  return (await (await fetch(`${server.baseUrl}/__bench/features`)).json()) as ServerFeatures;
}

function plan(
  partial: Omit<LoadPlan, "connections" | "warmupMs" | "measureMs">,
  scale = 1,
  measureMs = MEASURE_MS,
  connections = CONNECTIONS,
): LoadPlan {
  return { ...partial, connections, warmupMs: WARMUP_MS * scale, measureMs: measureMs * scale };
}

async function settle(target: ServerProcess, all: ServerProcess[]): Promise<void> {
  await collectGarbage(target);
  for (const server of all) await waitForIdle(server);
}

/**
 * Seeds `count` single-use credentials in the server (not timed); its answer is the pool the load generator spends.
 * The social flows are made here instead: each started on the server and walked at the provider (harness/social.ts).
 */
async function fillPool(server: ServerProcess, kind: PoolKind, count: number): Promise<Pool> {
  const started = Date.now();
  const items: PoolItem[] = [];
  if (kind === "social-callback") items.push(...(await socialFlows(server.baseUrl, count, SOCIAL_SUBJECTS)));
  // In batches of at most 1,000: no single request long enough to meet fetch's header timeout on a slow store.
  while (items.length < count) {
    const batch = Math.min(1_000, count - items.length);
    const response = await fetch(`${server.baseUrl}/__bench/pool?kind=${kind}&count=${batch}`, { method: "POST" });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`${server.spec.impl}: seeding ${batch} ${kind} answered ${response.status}: ${text}`);
    items.push(...(JSON.parse(text) as PoolItem[]));
  }
  log(
    `    (seeded ${count.toLocaleString("en-US")} ${kind} credentials in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  return newPool(items);
}

/** The scenarios of the social configuration (their own servers, with the bench's OpenID provider beside them). */
const isSocial = (s: Scenario) => s.needs.includes("social");
/** The scenarios of the second-factor configuration. */
const isSecondFactor = (s: Scenario) => s.needs.includes("secondFactor");

/**
 * The bench's OpenID provider as its own process (its CPU is neither library's), on the load generator's CPU when
 * pinned: the servers' core stays theirs. `ports`: the servers whose callbacks its client accepts.
 */
async function startProvider(ports: number[]): Promise<ServerProcess> {
  return startServer({
    impl: "oidc-provider",
    port: nextPort++,
    store: "memory",
    jwtHeader: false,
    cpus: pinning ? "0" : null,
    env: { BENCH_OIDC_REDIRECTS: ports.map((p) => `http://127.0.0.1:${p}${CALLBACK_PATH}`).join(",") },
  });
}

/** The most credentials a window of a pooled scenario needed (`poolNeed`), by scenario, server and store. */
const poolUse = new Map<string, number>();

/**
 * One measured window; for a pooled scenario a fresh pool first, seeded before the server settles (its garbage is
 * collected before the window). A window that ran out of credentials (its last requests failed for want of one) is
 * measured again with twice the pool, at most twice.
 */
async function measurePooled(
  scenario: Scenario,
  server: ServerProcess,
  store: StoreKind,
  impl: string,
  all: ServerProcess[],
  loadMs: number,
  run: (pool: Pool | undefined) => Promise<Measurement>,
): Promise<Measurement> {
  const key = `${scenario.id}|${impl}|${store}`;
  for (let attempt = 0; ; attempt += 1) {
    const pool = scenario.pool
      ? await fillPool(
          server,
          scenario.pool.kind,
          nextPoolSize(poolUse.get(key) ?? null, scenario.pool.firstGuess[store]),
        )
      : undefined;
    await settle(server, all);
    const m = await run(pool);
    if (!pool) return m;
    // The most any window of this scenario and server needed (an exhausted one: at least twice its pool).
    const need = exhausted(pool)
      ? pool.items.length * 2
      : poolNeed(pool.taken, m.cpuMsPerOp, loadMs, scenario.connections ?? CONNECTIONS);
    poolUse.set(key, Math.max(poolUse.get(key) ?? 0, need));
    if (!exhausted(pool) || attempt === 2) return m;
    log(
      `    ${impl} ran out of its ${pool.items.length.toLocaleString("en-US")} credentials: again with twice as many`,
    );
  }
}

async function runFloor(): Promise<Measurement> {
  const server = await start("floor", "memory", false);
  try {
    await waitForIdle(server);
    return await measure(
      server,
      plan({
        steps: [{ method: "GET", path: "/hello" }],
        completesOn: 0,
        check: (_s, _st, body) => body.includes("world"),
      }),
    );
  } finally {
    await server.stop();
  }
}

const missingFor = (scenario: Scenario, lk: ServerFeatures): Feature[] => scenario.needs.filter((f) => !lk[f]);

interface ConfigurationExtras {
  /** What the memory table calls this configuration. */
  label: string;
  /** A tuned Better Auth instead of its defaults; the rows' titles name it. */
  variant?: Variant;
  /** Another revision's Latchkey in place of Better Auth (`--baseline`). */
  baseline?: Baseline;
  /** Both servers with their two-factor and magic-link plugins (the scenarios with a pool of single-use credentials). */
  secondFactor?: boolean;
  /** Both servers with their social sign-in plugin, and the bench's OpenID provider started beside them. */
  social?: boolean;
  /** Runs after the HTTP seed (the scale mode's bulk load), before the first scenario. */
  before?: (lk: ServerProcess, ba: ServerProcess) => Promise<void>;
  /** Runs after the last scenario, both servers still up (sweeps, query plans). */
  after?: (lk: ServerProcess, ba: ServerProcess, seeds: Map<ServerProcess, Seed>) => Promise<void>;
}

/** Both servers in one configuration: seeded alike, each scenario run on both, alternating who goes first. */
async function runConfiguration(
  store: StoreKind,
  jwtHeader: boolean,
  scenarios: Scenario[],
  floor: Measurement | null,
  results: ScenarioResult[],
  info: Record<string, string>,
  memory: MemoryResult[],
  extras: ConfigurationExtras,
) {
  const secondFactor = extras.secondFactor ?? false;
  // The social configuration: both servers' ports first, so the provider (started before them: Better Auth reads its
  // discovery document when it starts) accepts their callbacks.
  const ports = { lk: nextPort++, ba: nextPort++ };
  const provider = extras.social ? await startProvider([ports.lk, ports.ba]) : null;
  const social = provider ? { oidcIssuer: provider.baseUrl } : {};
  const lk = await start("latchkey", store, jwtHeader, undefined, undefined, {
    cache: extras.variant?.latchkeyCache ?? false,
    sendLimits: extras.variant?.latchkeySendLimits ?? false,
    secondFactor,
    port: ports.lk,
    ...social,
  });
  // The other side: Better Auth, or in a `--baseline` run another revision's Latchkey (the same server file).
  const ba = extras.baseline
    ? await start(
        "latchkey",
        store,
        jwtHeader,
        undefined,
        undefined,
        { secondFactor, port: ports.ba, ...social },
        extras.baseline,
      )
    : await start("better-auth", store, jwtHeader, undefined, extras.variant?.variant, {
        secondFactor,
        port: ports.ba,
        ...social,
      });
  const otherName = extras.baseline ? "baseline" : "better-auth";
  const both = [lk, ba];
  try {
    // Every measured callback is a returning user's: each subject signs in once on each side first.
    if (provider) for (const server of both) await signInSubjects(server.baseUrl, SOCIAL_SUBJECTS);
    const lkFeatures = await features(lk);
    const baFeatures = await features(ba);
    if (!drivers.some((d) => d.store === store))
      drivers.push({ store, latchkey: lkFeatures.store, betterAuth: baFeatures.store });
    info["latchkey password hash"] = lkFeatures.passwordHash;
    if (!extras.baseline)
      info[
        extras.variant?.variant ? `better-auth password hash (${extras.variant.variant})` : "better-auth password hash"
      ] = baFeatures.passwordHash;
    const seeds = new Map<ServerProcess, Seed>([
      [lk, await seed(lk, USERS, lkFeatures.apiKeys)],
      [ba, await seed(ba, USERS, extras.baseline ? baFeatures.apiKeys : true)],
    ]);
    // The bulk load after the HTTP seed: Better Auth's createApiKey deletes every expired key it finds (at most every
    // 10 s), so loading first would leave it none for the timed sweep while Latchkey keeps all of its own.
    if (extras.before) await extras.before(lk, ba);
    // Resident memory of each seeded server at rest (after a collection), then the highest seen under load.
    const rss = new Map<ServerProcess, { idleMb: number; peakMb: number }>();
    for (const server of both) {
      await settle(server, both);
      rss.set(server, { idleMb: server.rssMb(), peakMb: 0 });
    }
    for (const [index, scenario] of scenarios.entries()) {
      // A baseline lacking a plugin skips the scenario on both sides (there is nothing to compare).
      const missing = [
        ...new Set([...missingFor(scenario, lkFeatures), ...(extras.baseline ? missingFor(scenario, baFeatures) : [])]),
      ];
      const result: ScenarioResult = {
        id: extras.variant ? `${scenario.id}+${extras.variant.id}` : scenario.id,
        title: extras.variant ? `${scenario.title} — ${extras.variant.label}` : scenario.title,
        store,
        unit: scenario.unit,
        work: extras.variant?.work[scenario.id] ?? scenario.work,
        latchkey: null,
        betterAuth: null,
        target: scenario.target[store === "postgres" ? "libsql" : store], // the same goals as on libSQL
        floorTarget: store === "memory" && scenario.id.startsWith("get-session") ? 0.5 : null,
        skipped: missing.length
          ? `no ${missing.join(", ")} plugin in @latchkey/core on this checkout${extras.baseline ? " or the baseline" : ""}`
          : null,
      };
      log(`  ${scenario.title} [${store}]`);
      const windows: NonNullable<ScenarioResult["windows"]> = [];
      const databaseCpu = store === "postgres" && postgres ? postgres.cpuMs : null;
      for (let repeat = 0; repeat < REPEAT; repeat += 1) {
        const pair: (typeof windows)[number] = { latchkey: null, betterAuth: null };
        const order = (index + repeat) % 2 === 0 ? [lk, ba] : [ba, lk];
        for (const server of order) {
          const impl = server === lk ? "latchkey" : "better-auth";
          if ((impl === "latchkey" || extras.baseline) && missing.length) {
            if (repeat === 0) log(`    latchkey     skipped: ${result.skipped}`);
            continue;
          }
          const loadMs = (WARMUP_MS + MEASURE_MS) * (scenario.windowScale ?? 1);
          const m = await measurePooled(scenario, server, store, impl, both, loadMs, (pool) =>
            measure(
              server,
              plan(
                scenario.plan(extras.baseline ? "latchkey" : impl, server, seeds.get(server) as Seed, pool),
                scenario.windowScale,
                MEASURE_MS,
                scenario.connections,
              ),
              databaseCpu,
            ),
          );
          const label = impl === "latchkey" ? (extras.baseline ? "current" : impl) : otherName;
          log(progressLine(REPEAT === 1 ? label : `${label} ${repeat + 1}`, m));
          const r = rss.get(server);
          if (r) r.peakMb = Math.max(r.peakMb, m.rssPeakMb);
          if (impl === "latchkey") pair.latchkey = m;
          else pair.betterAuth = m;
        }
        windows.push(pair);
      }
      result.windows = windows;
      result.latchkey = medianMeasurement(windows.flatMap((w) => (w.latchkey ? [w.latchkey] : [])));
      result.betterAuth = medianMeasurement(windows.flatMap((w) => (w.betterAuth ? [w.betterAuth] : [])));
      const r = ratio(result);
      const c = cpuRatio(result);
      if (r === null && measuredPairs(result) > 0)
        log(`    ratio        none: no pair of windows where both completed ${MIN_OPS} operations`);
      if (r !== null)
        log(
          `    ratio        ${r.toFixed(1)}x (CPU/op ${c === null ? "-" : c.toFixed(1)}x)${floor && result.floorTarget && result.latchkey ? `  (${((result.latchkey.opsPerSec / floor.opsPerSec) * 100).toFixed(0)}% of the Hono floor; CPU/op ${((floor.cpuMsPerOp / result.latchkey.cpuMsPerOp) * 100).toFixed(0)}%)` : ""}`,
        );
      results.push(result);
    }
    memory.push({ store, label: extras.label, latchkey: rss.get(lk) ?? null, betterAuth: rss.get(ba) ?? null });
    if (extras.after) await extras.after(lk, ba, seeds);
  } finally {
    await Promise.all(both.map((s) => s.stop()));
    await provider?.stop();
  }
}

async function sweep(server: ServerProcess, what: "apiKeys" | "sessions"): Promise<SweepTiming | string> {
  const response = await fetch(`${server.baseUrl}/__bench/sweep?what=${what}`, { method: "POST" });
  if (response.status === 404) return "no such sweep in this library";
  if (!response.ok)
    throw new Error(`${server.spec.impl}: sweep ${what} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as SweepTiming;
}

/** `POST /auth/api-key/delete-all-expired` as a signed-in user (the caller's own keys): median wall time of 5. */
async function perUserSweep(server: ServerProcess, cookie: string): Promise<SweepTiming> {
  const times: number[] = [];
  let deleted = 0;
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}/auth/api-key/delete-all-expired`, {
      method: "POST",
      headers: { cookie, origin: server.baseUrl },
    });
    const text = await response.text();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`latchkey: delete-all-expired answered ${response.status}: ${text}`);
    deleted += (JSON.parse(text) as { deleted: number }).deleted;
  }
  times.sort((a, b) => a - b);
  return { ms: times[2] as number, cpuMs: Number.NaN, deleted };
}

/**
 * The scale mode: per store, both libraries at a small and a large bulk seed (fresh databases each), the hot paths
 * measured on both; at the large seed also the sweeps and the query plans of the hot statements.
 */
interface Scaled {
  scale: ScaleResult[];
  sweeps: SweepResult[];
  plans: Record<string, string>;
}

async function runScale(
  info: Record<string, string>,
  memory: MemoryResult[],
  { scale, sweeps, plans }: Scaled,
  checkpoint: () => void,
): Promise<void> {
  const selected = SCENARIOS.filter((s) => SCALE_IDS.includes(s.id) && (!only || only.includes(s.id)));
  for (const store of stores.filter((s): s is "libsql" | "postgres" => s !== "memory")) {
    const bySize = new Map<number, ScenarioResult[]>();
    for (const users of [SMALL, LARGE]) {
      const sizes = sizesFor(users);
      log(
        `\nScale: ${store}, ${users.toLocaleString("en-US")} users, ${sizes.sessions.toLocaleString("en-US")} sessions, ${sizes.apiKeys.toLocaleString("en-US")} API keys, ${sizes.audit.toLocaleString("en-US")} audit rows (Latchkey)`,
      );
      const results: ScenarioResult[] = [];
      await runConfiguration(store, false, selected, null, results, info, memory, {
        label: `scale, ${users.toLocaleString("en-US")} users`,
        before: async (lk, ba) => {
          info[`bulk seed of ${users.toLocaleString("en-US")} users (${store})`] = await bulkSeed(lk, ba, users);
        },
        after:
          users !== LARGE
            ? undefined
            : async (lk, ba, seeds) => {
                log("  query plans of the hot statements");
                plans[store] = await explainHotStatements(targetOf(lk), targetOf(ba));
                log("  sweeps");
                const cookie = seeds.get(lk)?.users[0]?.cookie ?? "";
                sweeps.push({
                  store,
                  users,
                  name: "POST /api-key/delete-all-expired (the caller's expired keys, over HTTP)",
                  latchkey: await perUserSweep(lk, cookie),
                  betterAuth: "no per-user sweep (its delete-all-expired-api-keys is global)",
                });
                sweeps.push({
                  store,
                  users,
                  name: "API-key sweep of every user (auth.api)",
                  latchkey: await sweep(lk, "apiKeys"),
                  betterAuth: await sweep(ba, "apiKeys"),
                });
                sweeps.push({
                  store,
                  users,
                  name: "expired-session sweep",
                  latchkey: await sweep(lk, "sessions"),
                  betterAuth: await sweep(ba, "sessions"),
                });
              },
      });
      bySize.set(users, results);
    }
    for (const small of bySize.get(SMALL) ?? []) {
      const large = bySize.get(LARGE)?.find((r) => r.id === small.id);
      scale.push({
        id: small.id,
        title: small.title,
        store,
        small: { users: SMALL, latchkey: small.latchkey, betterAuth: small.betterAuth },
        large: { users: LARGE, latchkey: large?.latchkey ?? null, betterAuth: large?.betterAuth ?? null },
      });
    }
    checkpoint();
  }
}

/** `--profile=floor`: the Hono floor's own profile, to set beside a scenario's (same window length). */
async function profileFloor(): Promise<void> {
  const dir = `${tmpDir}/profiles/floor`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await start("floor", "memory", false, dir);
  await waitForIdle(server);
  const m = await measure(
    server,
    plan(
      { steps: [{ method: "GET", path: "/hello" }], completesOn: 0, check: (_s, _st, body) => body.includes("world") },
      1,
      Math.max(MEASURE_MS, 8_000),
    ),
  );
  log(progressLine("hono", m));
  await server.stop();
  log(summarizeProfile(dir, 25, m.windowMonotonicUs));
}

async function profile(): Promise<void> {
  if (profileScenario === "floor") return profileFloor();
  const scenario = SCENARIOS.find((s) => s.id === profileScenario);
  if (!scenario)
    throw new Error(`unknown scenario ${profileScenario}; one of ${SCENARIOS.map((s) => s.id).join(", ")}`);
  const store = stores[0] ?? "memory";
  const dir = `${tmpDir}/profiles/${profileImpl}-${scenario.id}-${store}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const port = nextPort++;
  const provider = isSocial(scenario) ? await startProvider([port]) : null;
  const server = await start(profileImpl, store, scenario.jwtHeader, dir, undefined, {
    cache: args.has("profile-cache"),
    sendLimits: args.has("profile-send-limits"),
    secondFactor: isSecondFactor(scenario),
    port,
    ...(provider ? { oidcIssuer: provider.baseUrl } : {}),
  });
  if (provider) await signInSubjects(server.baseUrl, SOCIAL_SUBJECTS);
  const scaleUsers = Number(args.get("scale-users") ?? 0);
  if (scaleUsers > 0) {
    const sizes = sizesFor(scaleUsers);
    if (profileImpl === "latchkey") await seedLatchkeyScale(targetOf(server), sizes, Date.now(), log);
    else
      await seedBetterAuthScale(
        targetOf(server),
        betterAuthTables({
          emailAndPassword: { enabled: true },
          plugins: betterAuthPlugins(false, () => undefined),
        } as never).tables,
        sizes,
        Date.now(),
        log,
      );
  }
  const f = await features(server);
  const s = await seed(server, USERS, profileImpl === "better-auth" || f.apiKeys);
  const profileMs = Math.max(MEASURE_MS, 8_000);
  const loadMs = (WARMUP_MS + profileMs) * (scenario.windowScale ?? 1);
  const m = await measurePooled(scenario, server, store, profileImpl, [server], loadMs, (pool) =>
    measure(
      server,
      plan(scenario.plan(profileImpl, server, s, pool), scenario.windowScale, profileMs, scenario.connections),
    ),
  );
  log(progressLine(profileImpl, m));
  await server.stop();
  await provider?.stop();
  log(summarizeProfile(dir, 25, m.windowMonotonicUs));
}

async function main(): Promise<void> {
  mkdirSync(tmpDir, { recursive: true });
  if (profileScenario) return profile();
  const info = machine();
  const baseline = baselineRev ? prepareBaseline(baselineRev, log) : null;
  if (baseline) {
    info.baseline = baseline.describe;
    delete info["better-auth"]; // not in this run
    info.load = info.load?.replace("the two libraries", `this checkout and ${baseline.short}`) ?? "";
  }
  log(baseline ? `Latchkey: this checkout vs ${baseline.short}` : "Latchkey vs Better Auth");
  for (const [k, v] of Object.entries(info)) log(`  ${k}: ${v}`);
  const selected = SCENARIOS.filter((s) => !only || only.includes(s.id));
  const standardParts = !scaleOnly && !baseline;
  // The configurations (pairs of servers) each store runs, in order: the estimate and `--plan` read the same list.
  const configurations = [
    ...[true, false].map((jwtHeader) => ({
      part: "standard scenarios",
      label: `defaults, JWT header ${jwtHeader ? "on" : "off"}`,
      scenarios: selected.filter((s) => s.jwtHeader === jwtHeader && !s.pool),
    })),
    {
      part: "second-factor scenarios",
      label: "defaults plus the two-factor and magic-link plugins, JWT header off",
      scenarios: selected.filter(isSecondFactor),
    },
    {
      part: "social sign-in scenarios",
      label: "defaults plus the social sign-in plugin and a local OpenID provider, JWT header off",
      scenarios: selected.filter(isSocial),
    },
    ...(variantsOn ? VARIANTS : []).flatMap((v) =>
      [true, false].map((jwtHeader) => ({
        part: `variant ${v.latchkeyCache ? "Latchkey cache on" : v.latchkeySendLimits ? "Latchkey send limits on" : v.id}`,
        label: `${v.label}, JWT header ${jwtHeader ? "on" : "off"}`,
        scenarios: selected.filter((s) => s.jwtHeader === jwtHeader && v.ids.includes(s.id)),
      })),
    ),
  ].filter((c) => c.scenarios.length > 0);
  const estimate = estimateRun({
    stores: scaleOnly ? 0 : stores.length,
    repeat: REPEAT,
    warmupMs: WARMUP_MS,
    measureMs: MEASURE_MS,
    configurations: configurations.map((c) => ({ part: c.part, scales: c.scenarios.map((s) => s.windowScale ?? 1) })),
    floor: standardParts && (!only || only.includes("floor")),
    hashCap: standardParts && (!only || only.includes("hash-cap")),
    workers: standardParts && !args.has("no-workers") && (!only || only.includes("workers")),
  });
  info["estimated duration"] = describeEstimate(estimate);
  log(`  estimated duration: ${info["estimated duration"]}${scale ? "; the scale part comes on top" : ""}`);
  // `--plan`: what the run would measure, per store, and nothing else.
  if (args.has("plan")) {
    for (const store of scaleOnly ? [] : stores)
      for (const c of configurations)
        log(
          `  ${store}: ${c.label}: ${c.scenarios.map((s) => `${s.id}${s.windowScale ? ` (x${s.windowScale} windows)` : ""}`).join(", ")}`,
        );
    return;
  }
  const results: ScenarioResult[] = [];
  const memory: MemoryResult[] = [];

  let floor: Measurement | null = null;
  if (!scaleOnly && !baseline && (!only || only.includes("floor"))) {
    log("\nHono floor (GET /hello, plain JSON)");
    floor = await runFloor();
    log(progressLine("hono", floor));
  }

  // Issue 33: get-session while 200 password sign-ins are in flight, without and with the hash cap.
  const hashCap: HashCapResult[] = [];
  if (!scaleOnly && !baseline && (!only || only.includes("hash-cap"))) {
    log("\nget-session while 200 password sign-ins are in flight (memory store, default argon2id)");
    for (const cap of ["off", "on"] as const) {
      const result = await measureHashCap({ cap, port: nextPort++, cpus: serverCpus });
      hashCap.push(result);
      log(
        `  ${cap === "on" ? "capped  " : "uncapped"} p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms over ${result.reads} reads; sign-ins ${JSON.stringify(result.statuses)}`,
      );
    }
  }

  // Issue 42: a returning user's sign-in with its device cookie under a junk flood, next to a quiet one.
  let deviceFlood: DeviceFloodRow[] = [];
  if (!scaleOnly && !baseline && (!only || only.includes("device-flood"))) {
    log("\ndevice-cookie sign-in under a junk flood (memory store, default argon2id)");
    deviceFlood = await measureDeviceFlood({ port: nextPort++, cpus: serverCpus });
    for (const row of deviceFlood)
      log(
        `  ${row.label}: p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms; ${JSON.stringify(row.statuses)}`,
      );
  }

  const scaled: Scaled = { scale: [], sweeps: [], plans: {} };
  let sizes: SizeResult[] = [];
  // The report is rewritten after every part, so a run stopped part-way still leaves what it measured.
  const report = (final: boolean) => {
    const totalS = (Date.now() - startedAt) / 1000;
    if (postgres)
      info.postgresql = `${postgres.version}, one throwaway cluster for both libraries (${postgres.settings}); its processes are not pinned; their CPU (postmaster, backends, background processes, from /proc/<pid>/stat) is the "app + db" column, the "app" column is the application process alone`;
    info["load average at end"] = loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
    const markdown = [
      `Run of ${new Date().toISOString()}, ${totalS.toFixed(0)} s in all${final ? "" : " (so far: the run is still going or was stopped)"}.`,
      "",
      ...Object.entries(info).map(([k, v]) => `- ${k}: ${v}`),
      "",
      floor === null
        ? ""
        : `Hono floor (GET /hello through @hono/node-server): ${Math.round(floor.opsPerSec).toLocaleString("en-US")} req/s, ${floor.cpuMsPerOp.toFixed(3)} ms server CPU per request.`,
      "",
      // Both columns of these two tables are named for the two libraries: not shown in a baseline run.
      drivers.length && !baseline
        ? `Database drivers (each server's own description of its store):\n\n${markdownDrivers(drivers)}\n`
        : "",
      results.length ? markdownTable(results, floor, baseline ? baselineColumns(baseline.short) : undefined) : "",
      "",
      hashCap.length
        ? `get-session (bearer, 4 at a time) while 200 password sign-ins for unknown emails are in flight, one server on the memory store with default argon2id; uncapped = \`passwordHashing: { concurrency: 1024, maxQueue: 100000, unauthenticatedBudget: false }\`:\n\n${markdownHashCap(hashCap)}`
        : "",
      "",
      deviceFlood.length
        ? `A returning user's password sign-in (one at a time) with its device cookie, quiet and while 200 junk sign-ins for unknown emails keep the hashing queue full, and without the cookie under the same flood; one server on the memory store with default argon2id and the default hash gate, per-IP limits off (a botnet of many networks):\n\n${markdownDeviceFlood(deviceFlood)}`
        : "",
      "",
      memory.length && !baseline
        ? `Resident memory (VmRSS of the server process; idle = seeded, after a collection; peak = highest sample, every 250 ms, in any measured window):\n\n${markdownMemory(memory)}`
        : "",
      "",
      scaled.scale.length
        ? `Hot paths at ${SMALL.toLocaleString("en-US")} and ${LARGE.toLocaleString("en-US")} users (bulk seed: as many sessions and audit rows as users, a tenth as many API keys; plus the 32 users and 2 keys every run creates over HTTP, which the scenarios use):\n\n${markdownScale(scaled.scale)}`
        : "",
      "",
      scaled.sweeps.length
        ? `Sweeps at ${LARGE.toLocaleString("en-US")} users (every tenth session and API key of the bulk seed is expired):\n\n${markdownSweeps(scaled.sweeps)}`
        : "",
      ...Object.entries(scaled.plans).map(
        ([store, text]) => `\nQuery plans at ${LARGE.toLocaleString("en-US")} users, ${store}:\n\n${text}`,
      ),
      "",
      sizes.length ? markdownSizes(sizes) : "",
      ...sizes.filter((s) => s.detail).map((s) => `\n${s.name}: ${s.detail}`),
    ].join("\n");
    // A baseline run is a run of its own: bench/results/baseline.*, next to the main run's latest.*.
    const file = baseline ? "baseline" : "latest";
    mkdirSync(`${benchDir}results`, { recursive: true });
    writeFileSync(`${benchDir}results/${file}.md`, `${markdown}\n`);
    writeFileSync(
      `${benchDir}results/${file}.json`,
      `${JSON.stringify({ run: { final, repeat: REPEAT, quick, command: `pnpm bench ${process.argv.slice(2).join(" ")}`.trim(), ...(baseline ? { baseline: baseline.commit } : {}) }, info, floor, results, hashCap, deviceFlood, memory, ...scaled, sizes, totalSeconds: totalS, final }, null, 2)}\n`,
    );
    if (final) {
      log(`\n${markdown}`);
      log(`\nTotal time: ${totalS.toFixed(0)} s (results in bench/results/${file}.md and ${file}.json)`);
    }
  };

  for (const store of scaleOnly ? [] : stores) {
    log(`\nStore: ${store}`);
    if (store === "libsql" && !hasDrizzleStore()) {
      log("  skipped: @latchkey/drizzle-store is not in this workspace yet (the libSQL scenarios run once it is)");
      results.push(...notRun(selected, store, "libsql", "@latchkey/drizzle-store not in this workspace"));
      continue;
    }
    for (const jwtHeader of [true, false]) {
      const group = selected.filter((s) => s.jwtHeader === jwtHeader && !s.pool);
      if (group.length)
        await runConfiguration(store, jwtHeader, group, floor, results, info, memory, {
          label: `${USERS} users, JWT header ${jwtHeader ? "on" : "off"}`,
          ...(baseline ? { baseline } : {}),
        });
    }
    // The scenarios that spend a single-use credential per request: their own pair of servers, with the two-factor
    // and magic-link plugins installed on both (the other scenarios run without them, as before).
    const pooled = selected.filter(isSecondFactor);
    if (pooled.length && store === "memory" && !baseline) {
      // Better Auth's memory adapter snapshots every table for each transaction (and both verifies consume their rows
      // in one), so its cost per request grows with the pool of users seeded for the run: no ratio worth printing.
      log(
        "  second-factor scenarios skipped on memory: Better Auth's memory adapter copies every table per transaction",
      );
      results.push(
        ...notRun(
          pooled,
          store,
          "memory",
          "not run on memory: Better Auth's memory adapter copies every table per transaction, so its cost grows with the seeded pool",
        ),
      );
    } else if (pooled.length)
      await runConfiguration(store, false, pooled, floor, results, info, memory, {
        label: `${USERS} users, JWT header off, two-factor and magic-link plugins on`,
        secondFactor: true,
        ...(baseline ? { baseline } : {}),
      });
    // The social sign-in's callback: its own pair of servers, each with its OpenID provider plugin pointed at the
    // bench's provider, which runs as a third process (harness/social.ts).
    const social = selected.filter(isSocial);
    if (social.length && store === "memory" && !baseline) {
      // Better Auth's memory adapter finds a row by scanning its table (and copies the database for a transaction),
      // and its verification table holds the whole pool of started flows: its cost grows with the pool.
      log("  social sign-in scenarios skipped on memory: Better Auth's memory adapter scans the pool's state rows");
      results.push(
        ...notRun(
          social,
          store,
          "memory",
          "not run on memory: Better Auth's memory adapter scans its tables, and its verification table holds the pool of started flows, so its cost grows with the pool",
        ),
      );
    } else if (social.length)
      await runConfiguration(store, false, social, floor, results, info, memory, {
        label: `${USERS} users, JWT header off, social sign-in plugin on (local OpenID provider)`,
        social: true,
        ...(baseline ? { baseline } : {}),
      });
    for (const v of variantsOn ? VARIANTS : []) {
      for (const jwtHeader of [true, false]) {
        const group = selected.filter((s) => s.jwtHeader === jwtHeader && v.ids.includes(s.id));
        if (group.length)
          await runConfiguration(store, jwtHeader, group, null, results, info, memory, {
            label: `${USERS} users, JWT header ${jwtHeader ? "on" : "off"}, ${v.label}`,
            variant: v,
          });
      }
    }
    report(false);
  }

  if (scale) await runScale(info, memory, scaled, () => report(false));

  if (!scaleOnly && !baseline && !args.has("no-workers") && (!only || only.includes("workers"))) {
    log("\nWorkers (esbuild bundle, workerd cold start)");
    sizes = await measureWorkers(latchkeyPlugins(), quick ? 3 : 7, serverCpus, log);
  }
  report(true);
}

try {
  await main();
} finally {
  await (postgres as BenchPostgres | null)?.stop();
}
