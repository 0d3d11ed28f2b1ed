import { measure, type Measurement } from "./harness/load.ts";
import type { ServerProcess } from "./harness/process.ts";
import {
  cpuRatio,
  MIN_OPS,
  measuredPairs,
  medianMeasurement,
  progressLine,
  ratio,
  type DriverRow,
  type MemoryResult,
  type ScenarioResult,
} from "./harness/report.ts";
import type { Baseline } from "./harness/baseline.ts";
import type { Scenario } from "./harness/scenarios.ts";
import { seed, type Seed } from "./harness/seed.ts";
import { SOCIAL_SUBJECTS, signInSubjects } from "./harness/social.ts";
import type { StoreKind } from "./servers/shell.ts";
import { MEASURE_MS, REPEAT, USERS, WARMUP_MS, log } from "./run-options.ts";
import { features, runningPostgres, start, startProvider, takePort } from "./run-servers.ts";
import type { Variant } from "./run-variants.ts";
import { measurePooled, missingFor, plan, settle } from "./run-windows.ts";

/** Each side's database driver per store, as its server describes it: printed above the results table. */
export const drivers: DriverRow[] = [];

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
export async function runConfiguration(
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
  const ports = { lk: takePort(), ba: takePort() };
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
      const postgres = runningPostgres();
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
