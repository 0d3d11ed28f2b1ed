import { mkdirSync, rmSync } from "node:fs";
import { measure } from "./harness/load.ts";
import { waitForIdle } from "./harness/process.ts";
import { summarizeProfile } from "./harness/profile.ts";
import { progressLine } from "./harness/report.ts";
import { SCENARIOS } from "./harness/scenarios.ts";
import { seed } from "./harness/seed.ts";
import { SOCIAL_SUBJECTS, signInSubjects } from "./harness/social.ts";
import { sizesFor } from "./scale/rows.ts";
import { seedBetterAuthScale, seedLatchkeyScale } from "./scale/seed.ts";
import { betterAuthPlugins, betterAuthTables } from "./servers/better-auth-db.ts";
import {
  args,
  log,
  MEASURE_MS,
  profileImpl,
  profileScenario,
  stores,
  tmpDir,
  USERS,
  WARMUP_MS,
} from "./run-options.ts";
import { features, start, startProvider, takePort, targetOf } from "./run-servers.ts";
import { isSecondFactor, isSocial, measurePooled, plan } from "./run-windows.ts";

// `--profile=<scenario id>`: one server under one scenario's load, CPU-profiled, and the profile's summary.

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

export async function profile(): Promise<void> {
  if (profileScenario === "floor") return profileFloor();
  const scenario = SCENARIOS.find((s) => s.id === profileScenario);
  if (!scenario)
    throw new Error(`unknown scenario ${profileScenario}; one of ${SCENARIOS.map((s) => s.id).join(", ")}`);
  const store = stores[0] ?? "memory";
  const dir = `${tmpDir}/profiles/${profileImpl}-${scenario.id}-${store}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const port = takePort();
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
