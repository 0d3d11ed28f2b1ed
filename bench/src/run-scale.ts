import type { ServerProcess } from "./harness/process.ts";
import type { MemoryResult, ScaleResult, ScenarioResult, SweepResult } from "./harness/report.ts";
import { SCENARIOS } from "./harness/scenarios.ts";
import { explainHotStatements } from "./scale/explain.ts";
import { sizesFor } from "./scale/rows.ts";
import { seedBetterAuthScale, seedLatchkeyScale } from "./scale/seed.ts";
import { betterAuthPlugins, betterAuthTables } from "./servers/better-auth-db.ts";
import type { SweepTiming } from "./servers/shell.ts";
import { LARGE, log, only, SCALE_IDS, SMALL, stores } from "./run-options.ts";
import { runConfiguration } from "./run-configuration.ts";
import { targetOf } from "./run-servers.ts";

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
export interface Scaled {
  scale: ScaleResult[];
  sweeps: SweepResult[];
  plans: Record<string, string>;
}

export async function runScale(
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
