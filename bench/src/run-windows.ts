import { measure, type LoadPlan, type Measurement } from "./harness/load.ts";
import { exhausted, newPool, nextPoolSize, poolNeed, type Pool, type PoolItem, type PoolKind } from "./harness/pool.ts";
import { waitForIdle, type ServerProcess } from "./harness/process.ts";
import type { Feature, Scenario } from "./harness/scenarios.ts";
import { collectGarbage } from "./harness/seed.ts";
import { SOCIAL_SUBJECTS, socialFlows } from "./harness/social.ts";
import type { ServerFeatures, StoreKind } from "./servers/shell.ts";
import { CONNECTIONS, log, MEASURE_MS, WARMUP_MS } from "./run-options.ts";
import { start } from "./run-servers.ts";

// One measured window of a run: its load plan, the settling before it, and the pool of single-use credentials a
// pooled scenario spends in it.

export function plan(
  partial: Omit<LoadPlan, "connections" | "warmupMs" | "measureMs">,
  scale = 1,
  measureMs = MEASURE_MS,
  connections = CONNECTIONS,
): LoadPlan {
  return { ...partial, connections, warmupMs: WARMUP_MS * scale, measureMs: measureMs * scale };
}

export async function settle(target: ServerProcess, all: ServerProcess[]): Promise<void> {
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
export const isSocial = (s: Scenario) => s.needs.includes("social");
/** The scenarios of the second-factor configuration. */
export const isSecondFactor = (s: Scenario) => s.needs.includes("secondFactor");

/** The most credentials a window of a pooled scenario needed (`poolNeed`), by scenario, server and store. */
const poolUse = new Map<string, number>();

/**
 * One measured window; for a pooled scenario a fresh pool first, seeded before the server settles (its garbage is
 * collected before the window). A window that ran out of credentials (its last requests failed for want of one) is
 * measured again with twice the pool, at most twice.
 */
export async function measurePooled(
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

export async function runFloor(): Promise<Measurement> {
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

export const missingFor = (scenario: Scenario, lk: ServerFeatures): Feature[] => scenario.needs.filter((f) => !lk[f]);
