// Better Auth on libSQL, its two ways in: its drizzle adapter over `@libsql/client` (what the side-by-side used
// before) and its built-in Kysely adapter over the native `libsql` engine's better-sqlite3-style Database (what it
// uses now). Each driver gets a fresh file with the tables from Better Auth's own migrations, one user and one
// quota key; get-session (cookie) and quota API-key verify run in process through Better Auth's `auth.api`, one call
// at a time. Rounds alternate the drivers so a noisy neighbour slows both alike; reported per round: this process's
// CPU time per call (adapter + driver + engine, all in this process) and wall time per call.
// `node --import tsx src/micro/ba-sqlite-drivers.ts [--n=3000] [--rounds=3]`
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createClient } from "@libsql/client";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { drizzle } from "drizzle-orm/libsql";
import { betterAuthDatabase, betterAuthPlugins, betterAuthTables } from "../servers/better-auth-db.ts";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 3000);
const rounds = Number(args.get("rounds") ?? 3);
const dir = mkdtempSync(`${tmpdir()}/ba-sqlite-drivers-`);

const options = {
  secret: "bench-secret-0123456789abcdef0123456789abcdef",
  baseURL: "http://127.0.0.1:1",
  basePath: "/auth",
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins: betterAuthPlugins(false, () => undefined),
} satisfies BetterAuthOptions;

type Driver = { name: string; open(file: string): Promise<{ database: BetterAuthOptions["database"]; close(): void }> };
const drivers: Driver[] = [
  {
    name: "Kysely adapter + native libsql Database",
    async open(file) {
      const db = await betterAuthDatabase({ kind: "libsql", file }, options as BetterAuthOptions);
      return { database: db.database, close: () => void db.close() };
    },
  },
  {
    name: "drizzle adapter + @libsql/client",
    async open(file) {
      // The same tables (its migrations, run through the Kysely side once), then drizzle over @libsql/client.
      await (await betterAuthDatabase({ kind: "libsql", file }, options as BetterAuthOptions)).close();
      const client = createClient({ url: `file:${file}` });
      await client.execute("pragma synchronous = normal");
      const { tables } = betterAuthTables(options as BetterAuthOptions);
      return {
        database: drizzleAdapter(drizzle({ client }), { provider: "sqlite", schema: tables }),
        close: () => client.close(),
      };
    },
  },
];

async function measure(call: () => Promise<unknown>): Promise<{ cpuUs: number; wallUs: number }> {
  for (let i = 0; i < 300; i++) await call(); // warm-up: JIT, page cache
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await call();
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / n, wallUs: ((performance.now() - start) * 1000) / n };
}

const results = new Map<string, Array<{ cpuUs: number; wallUs: number }>>();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? drivers : [...drivers].reverse();
  for (const driver of order) {
    const file = `${dir}/${round}-${driver.name.replace(/\W+/g, "-")}.db`;
    const db = await driver.open(file);
    const auth = betterAuth({ ...options, database: db.database });
    const up = await auth.api.signUpEmail({
      body: { email: "user0@bench.test", password: "correct-horse-battery-staple", name: "Bench User" },
      returnHeaders: true,
    });
    const headers = new Headers({
      cookie: up.headers
        .getSetCookie()
        .map((line) => line.split(";")[0])
        .join("; "),
    });
    const { key } = await auth.api.createApiKey({
      body: { userId: up.response.user.id, name: "quota", remaining: 1_000_000_000 },
    });
    const calls: Array<[string, () => Promise<unknown>]> = [
      [
        "get-session",
        async () => {
          if (!(await auth.api.getSession({ headers }))) throw new Error("no session");
        },
      ],
      [
        "api-key verify (quota)",
        async () => {
          if (!(await auth.api.verifyApiKey({ body: { key } })).valid) throw new Error("key refused");
        },
      ],
    ];
    for (const [path, call] of calls) {
      const label = `${path.padEnd(24)} ${driver.name}`;
      results.set(label, [...(results.get(label) ?? []), await measure(call)]);
    }
    db.close();
  }
}
rmSync(dir, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [label, xs] of results) {
  const cpu = xs.map((x) => x.cpuUs);
  const wall = xs.map((x) => x.wallUs);
  console.log(
    `${label.padEnd(68)} median ${Math.round(median(cpu)).toString().padStart(5)} µs CPU/call ${Math.round(median(wall)).toString().padStart(5)} µs wall/call  (rounds: ${cpu.map(Math.round).join(", ")} µs CPU)`,
  );
}
