// Side by side: get-session and API-key verify through `auth.handler` (in process, no HTTP) on one real PostgreSQL,
// with the store on node-postgres (the default) and on postgres.js. Rounds alternate the drivers so a noisy
// neighbour slows both alike; each round reports ops/s at concurrency 1 and 16, and this process's CPU time per
// operation (handler + store + driver; PostgreSQL's own work is the same SQL for both), which a busy machine does
// not inflate the way it inflates wall time.
// `node --import tsx src/micro/pg-drivers.ts [--n=4000] [--rounds=3]`
import pg from "pg";
import postgres from "postgres";
import { apiKeys, type Store } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as postgresJsStore } from "@latchkey/drizzle-store/postgres-js";
import { startTestPostgres } from "../../../test/postgres-server.ts";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 4000);
const rounds = Number(args.get("rounds") ?? 3);

const server = await startTestPostgres();
await migrateDatabase(server.url);
const pjs = postgres(server.url, { max: 10, onnotice: () => undefined });
// The store's own pool (timeouts set) and a bare pg.Pool of the caller's: what the timeouts cost, if anything.
const bare = new pg.Pool({ connectionString: server.url, max: 10 });
const drivers: Array<[string, () => Store]> = [
  ["node-postgres", () => drizzleStore({ url: server.url, maxConnections: 10 })],
  ["node-postgres (bare pool)", () => drizzleStore({ client: bare })],
  ["postgres.js", () => postgresJsStore({ client: pjs })],
];

async function setup(name: string, store: Store) {
  const auth = createAuth({
    secret: "bench-secret-0123456789abcdefghijklmnop",
    baseUrl: "http://localhost",
    environment: "development",
    cookies: { secure: false },
    database: store,
    rateLimit: { enabled: false },
    plugins: [apiKeys()],
  });
  const email = `${name.replace(/\W/g, "")}-${Date.now()}@example.com`;
  const up = await auth.handler(
    new Request("http://localhost/auth/sign-up/email", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "bench password 1" }),
    }),
  );
  const { credentials, user } = (await up.json()) as { credentials: { token: string }; user: { id: string } };
  const { key } = await auth.api.createApiKey({ userId: user.id });
  const getSession = () =>
    auth.handler(
      new Request("http://localhost/auth/get-session", { headers: { authorization: `Bearer ${credentials.token}` } }),
    );
  const verify = () =>
    auth.handler(
      new Request("http://localhost/auth/api-key/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key }),
      }),
    );
  return { auth, getSession, verify };
}

async function measure(call: () => Promise<Response>, concurrency: number): Promise<{ ops: number; cpuUs: number }> {
  let next = 0;
  const lane = async () => {
    while (next++ < n) {
      const res = await call();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.arrayBuffer();
    }
  };
  for (let i = 0; i < 500; i++) await (await call()).arrayBuffer(); // warm-up: JIT, prepared statements, pool
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const used = process.cpuUsage(cpu);
  return { ops: n / (Number(process.hrtime.bigint() - start) / 1e9), cpuUs: (used.user + used.system) / n };
}

const order = (round: number) => [
  ...drivers.slice(round % drivers.length),
  ...drivers.slice(0, round % drivers.length),
];
const results = new Map<string, Array<{ ops: number; cpuUs: number }>>();
for (let round = 0; round < rounds; round++) {
  for (const [name, open] of order(round)) {
    const { auth, getSession, verify } = await setup(name, open());
    for (const [path, call] of [
      ["get-session", getSession],
      ["api-key verify", verify],
    ] as const) {
      for (const concurrency of [1, 16]) {
        const key = `${path} c=${concurrency} ${name}`;
        results.set(key, [...(results.get(key) ?? []), await measure(call, concurrency)]);
      }
    }
    await auth.close();
  }
}
await pjs.end({ timeout: 5 });
await bare.end();
await server.stop();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [key, xs] of results) {
  const ops = xs.map((x) => x.ops);
  const cpu = xs.map((x) => x.cpuUs);
  // Medians, and the best round (the one least disturbed by other processes on a shared machine).
  console.log(
    `${key.padEnd(48)} median ${Math.round(median(ops)).toString().padStart(6)} ops/s ${Math.round(median(cpu)).toString().padStart(5)} µs CPU/op; best ${Math.round(
      Math.max(...ops),
    )
      .toString()
      .padStart(6)} ops/s ${Math.round(Math.min(...cpu))
      .toString()
      .padStart(
        5,
      )} µs  (rounds: ${ops.map((x) => Math.round(x)).join(", ")} ops/s; ${cpu.map((x) => Math.round(x)).join(", ")} µs)`,
  );
}
