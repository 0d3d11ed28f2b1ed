/**
 * Micro-benchmark of the API-key hot path: `POST /auth/api-key/verify` and a host route behind
 * `auth.requireApiKey()`, on the memory store, next to a plain Hono JSON route, all through `app.request()`
 * in one process (no sockets, so the numbers compare framework and library work, not the network).
 *
 *   pnpm bench:micro                          # defaults: 4 rounds x 2 s per scenario, 16 requests in flight
 *   pnpm bench:micro -- --duration=5000 --concurrency=64 --rounds=5
 *
 * Prints ops/s per scenario (median of the rounds) and its ratio to the plain route. No assertions on timing.
 */
import { Hono } from "hono";
import { apiKeys } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

interface Settings {
  durationMs: number;
  concurrency: number;
  rounds: number;
}

function settings(argv: string[]): Settings {
  const arg = (name: string, fallback: number) => {
    const hit = argv.find((a) => a.startsWith(`--${name}=`));
    const value = hit ? Number(hit.slice(name.length + 3)) : fallback;
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
    return value;
  };
  return { durationMs: arg("duration", 2000), concurrency: arg("concurrency", 16), rounds: arg("rounds", 4) };
}

interface Scenario {
  name: string;
  request: () => Response | Promise<Response>;
  /** Checks one answer so a broken setup cannot report a fast failure as throughput. */
  check: (res: Response) => Promise<void>;
}

async function expectJson(res: Response, predicate: (body: unknown) => boolean, label: string): Promise<void> {
  const body = await res.json();
  if (res.status !== 200 || !predicate(body))
    throw new Error(`${label}: unexpected answer ${res.status} ${JSON.stringify(body)}`);
}

/** Requests per second over `durationMs` with `concurrency` requests in flight. */
async function measure(scenario: Scenario, { durationMs, concurrency }: Settings): Promise<number> {
  let done = 0;
  const end = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const res = await scenario.request();
      if (res.status !== 200) throw new Error(`${scenario.name}: status ${res.status}`);
      await res.arrayBuffer();
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - start) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  const base = "https://bench.local";
  const auth = createAuth({
    secret: "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz",
    database: memoryStore(),
    baseUrl: base,
    plugins: [apiKeys()],
  });
  const user = await auth.api.createUser({ email: "bench@example.com", password: "bench password 1" });
  const unlimited = await auth.api.createApiKey({ userId: user.id, name: "unlimited" });
  const metered = await auth.api.createApiKey({ userId: user.id, name: "metered", remaining: 2_000_000_000 });

  const plain = new Hono();
  plain.get("/plain", (c) => c.json({ ok: true }));

  const app = new Hono();
  app.use("*", auth.middleware);
  app.route("/auth", auth.app);
  app.get("/protected", auth.requireApiKey(), (c) => c.json({ ok: true, keyId: c.var.apiKey.id }));

  const verify = (key: string) => () =>
    app.request(`${base}/auth/api-key/verify`, { method: "POST", headers: { "x-api-key": key } });
  const isValid = (body: unknown) => (body as { valid?: boolean }).valid === true;
  const scenarios: Scenario[] = [
    {
      name: "plain Hono JSON route (GET /plain)",
      request: () => plain.request(`${base}/plain`),
      check: (r) => expectJson(r, (b) => (b as { ok?: boolean }).ok === true, "plain"),
    },
    {
      name: "POST /auth/api-key/verify (unlimited key)",
      request: verify(unlimited.key),
      check: (r) => expectJson(r, isValid, "verify"),
    },
    {
      name: "GET /protected via requireApiKey()",
      request: () => app.request(`${base}/protected`, { headers: { "x-api-key": unlimited.key } }),
      check: (r) => expectJson(r, (b) => (b as { ok?: boolean }).ok === true, "requireApiKey"),
    },
    {
      name: "POST /auth/api-key/verify (metered key: 1 atomic write)",
      request: verify(metered.key),
      check: (r) => expectJson(r, isValid, "verify metered"),
    },
  ];

  for (const scenario of scenarios) {
    await scenario.check(await scenario.request());
    // Warm-up: let the JIT settle before measuring.
    await measure(scenario, { ...s, durationMs: Math.min(500, s.durationMs) });
  }
  const results = new Map<string, number[]>(scenarios.map((sc) => [sc.name, []]));
  // Each round starts at another scenario (the one measured right after another pays for its garbage), and a
  // collection runs before each measurement when the script has --expose-gc (the pnpm script passes it).
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let round = 0; round < s.rounds; round++) {
    for (let i = 0; i < scenarios.length; i++) {
      const scenario = scenarios[(round + i) % scenarios.length]!;
      gc?.();
      results.get(scenario.name)!.push(await measure(scenario, s));
    }
  }

  const floor = median(results.get(scenarios[0]!.name)!);
  console.log(
    `API-key verify micro-benchmark (memory store, app.request(), ${s.concurrency} in flight, ${s.rounds} x ${s.durationMs} ms, median)`,
  );
  console.log(`node ${process.version} on ${process.platform}/${process.arch}\n`);
  const width = Math.max(...scenarios.map((sc) => sc.name.length));
  console.log(`${"scenario".padEnd(width)}  ${"ops/s".padStart(10)}  ratio to plain`);
  for (const scenario of scenarios) {
    const ops = median(results.get(scenario.name)!);
    console.log(
      `${scenario.name.padEnd(width)}  ${Math.round(ops).toLocaleString("en-US").padStart(10)}  ${(ops / floor).toFixed(2)}`,
    );
  }
  // The metered scenario really wrote: every admitted verify consumed one use.
  const after = await auth.api.listApiKeys({ userId: user.id, limit: 10 });
  const remaining = after.apiKeys.find((k) => k.id === metered.apiKey.id)?.remaining ?? 0;
  console.log(
    `\nmetered key: ${(2_000_000_000 - remaining).toLocaleString("en-US")} uses consumed atomically; unlimited key lastUsedAt: ${after.apiKeys.find((k) => k.id === unlimited.apiKey.id)?.lastUsedAt ?? "null (never written)"}`,
  );
}

await main();
