// Organizations, side by side with Better Auth's organization plugin (better-auth 1.7.5, `organization()`), in one
// process: the CPU two hot reads cost each library. `POST /organization/has-permission` (a member's role against a
// statement) and `GET /get-session` of a session whose active organization is set (the read every request of an
// organization-scoped app makes). Both run on the same kind of store, each its own SQLite file by default
// (`--store=libsql`: Latchkey's drizzle store, Better Auth's Kysely adapter over better-sqlite3's API, as the main
// bench runs them) or in memory (`--store=memory`), with rate limits off, behind their own `(Request) => Response`
// handler. Each library signs one user up, creates one organization (which both make the session's active one)
// outside the timing; requests run one at a time, so the process's CPU over a request is that request's. Rounds
// alternate the libraries; the figure is the median round.
//   node --import tsx src/micro/organization-reads.ts [--rounds=7] [--per-round=300] [--store=libsql|memory]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { organizations, type Store } from "@latchkey/core";
import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/sqlite";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { organization as betterAuthOrganization } from "better-auth/plugins";
import { betterAuthDatabase } from "../servers/better-auth-db.ts";
import { cookiesOf, expectOk, ORIGIN, sender, type Handler } from "./http.ts";

/** Both libraries are mounted at `/auth`. */
const send = sender("/auth");

const option = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const rounds = option("rounds", 7);
const perRound = option("per-round", 300);
const storeKind = process.argv.find((a) => a.startsWith("--store="))?.split("=")[1] ?? "libsql";
if (storeKind !== "libsql" && storeKind !== "memory") throw new Error("--store is libsql or memory");
const dir = mkdtempSync(join(tmpdir(), "latchkey-organization-bench-"));

const EMAIL = "owner@bench.test";
const PASSWORD = "correct horse battery staple";
const SECRET = "bench-organization-0123456789abcdefghijklmnopqrstuvwxyz";

interface Library {
  name: string;
  handler: Handler;
  /** The session cookie and the organization's id, set up outside the timing. */
  cookies: string[];
  organizationId: string;
}

async function latchkeyStore(): Promise<Store> {
  if (storeKind === "memory") return memoryStore();
  const url = `file:${join(dir, "latchkey.db")}`;
  const client = createClient({ url });
  await client.execute("pragma journal_mode = wal");
  await migrateDatabase(client);
  client.close();
  return drizzleStore({ url });
}

const betterAuthOptions = {
  secret: SECRET,
  baseURL: ORIGIN,
  basePath: "/auth",
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins: [betterAuthOrganization()],
} satisfies BetterAuthOptions;
const betterAuthDb = await betterAuthDatabase(
  storeKind === "memory" ? { kind: "memory" } : { kind: "libsql", file: join(dir, "better-auth.db") },
  betterAuthOptions,
);
const betterAuthInstance = betterAuth({ ...betterAuthOptions, database: betterAuthDb.database });

/** Signs up and creates the organization (both libraries make it the session's active one). */
async function prepare(name: string, handler: Handler): Promise<Library> {
  const signUp = await send(handler, "POST", "/sign-up/email", { email: EMAIL, password: PASSWORD, name: "Bench" });
  const cookies = cookiesOf(signUp);
  await expectOk(signUp, `${name} sign-up`);
  const created = (await expectOk(
    await send(handler, "POST", "/organization/create", { name: "Bench", slug: "bench" }, cookies),
    `${name} create organization`,
  )) as { id: string };
  const session = (await expectOk(
    await send(handler, "GET", "/get-session", undefined, cookies),
    `${name} session`,
  )) as {
    session: { activeOrganizationId?: string | null };
  };
  if (session.session.activeOrganizationId !== created.id) throw new Error(`${name}: the organization is not active`);
  return { name, handler, cookies, organizationId: created.id };
}

const libraries = [
  await prepare(
    "Latchkey",
    createAuth({
      secret: SECRET,
      baseUrl: ORIGIN,
      database: await latchkeyStore(),
      rateLimit: { enabled: false },
      getClientIp: () => "127.0.0.1",
      plugins: [organizations()],
    }).handler,
  ),
  await prepare("Better Auth", (request) => betterAuthInstance.handler(request)),
];

type Read = { name: string; call(lib: Library): Promise<Response>; check(body: unknown, lib: Library): boolean };
const READS: Read[] = [
  {
    name: "hasPermission",
    call: (lib) =>
      send(
        lib.handler,
        "POST",
        "/organization/has-permission",
        { organizationId: lib.organizationId, permissions: { member: ["update"] } },
        lib.cookies,
      ),
    check: (body) => (body as { success?: unknown }).success === true,
  },
  {
    name: "active-organization session read",
    call: (lib) => send(lib.handler, "GET", "/get-session", undefined, lib.cookies),
    check: (body, lib) =>
      (body as { session?: { activeOrganizationId?: unknown } }).session?.activeOrganizationId === lib.organizationId,
  },
];

/** CPU microseconds (user + system) of each request of one round. */
async function round(lib: Library, read: Read): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < perRound; i++) {
    const before = process.cpuUsage();
    const res = await read.call(lib);
    const text = await res.text();
    const used = process.cpuUsage(before);
    if (!res.ok || !read.check(JSON.parse(text), lib))
      throw new Error(`${lib.name} ${read.name} answered ${res.status}: ${text.slice(0, 200)}`);
    out.push(used.user + used.system);
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(
  `organization reads on ${storeKind}, CPU per request (median of ${rounds} rounds of ${perRound}, Node ${process.version})`,
);
console.log("| read | library | CPU per request | rounds (mean of each) |");
console.log("|---|---|---|---|");
const ratios: string[] = [];
for (const read of READS) {
  // Warm-up: one round each, not counted (module loading, JIT).
  for (const lib of libraries) await round(lib, read);
  const perLibrary = new Map<string, number[]>(libraries.map((lib) => [lib.name, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? libraries : [...libraries].reverse();
    for (const lib of order) perLibrary.get(lib.name)!.push(mean(await round(lib, read)));
  }
  const figures = libraries.map((lib) => ({ name: lib.name, cpuUs: median(perLibrary.get(lib.name)!) }));
  for (const f of figures)
    console.log(
      `| ${read.name} | ${f.name} | ${f.cpuUs.toFixed(0)} µs | ${perLibrary
        .get(f.name)!
        .map((x) => x.toFixed(0))
        .join(", ")} |`,
    );
  ratios.push(`${read.name}: ratio Better Auth / Latchkey: ${(figures[1]!.cpuUs / figures[0]!.cpuUs).toFixed(2)}`);
}
await betterAuthDb.close();
rmSync(dir, { recursive: true, force: true });
for (const line of ratios) console.log(line);
