// Passkey sign-in, side by side with Better Auth's passkey plugin (@better-auth/passkey 1.7.5), in one process: the
// CPU one sign-in's verify request costs each library (`POST /passkey/authenticate/verify` against
// `POST /passkey/verify-authentication`). Both run on the same kind of store, each its own SQLite file by default
// (`--store=libsql`: Latchkey's drizzle store, Better Auth's Kysely adapter over better-sqlite3's API, as the main
// bench runs them) or in memory (`--store=memory`), with rate limits off, behind their own `(Request) => Response`
// handler, signing in the same user with the same software authenticator (ES256, the
// key type browsers ask for first) as a browser would: options first (not timed), then the assertion (made
// outside the timing), then the timed verify with the challenge cookie. Sign-ins run one at a time, so the
// process's CPU over a verify is that verify's. Rounds alternate the libraries; the figure is the median round.
//   node --import tsx src/micro/passkey-sign-in.ts [--rounds=7] [--per-round=200] [--store=libsql|memory]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passkey as betterAuthPasskey } from "@better-auth/passkey";
import { createClient } from "@libsql/client";
import { passkeys, type Store } from "@latchkey/core";
import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/sqlite";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { betterAuthDatabase } from "../servers/better-auth-db.ts";
import { cookiesOf, expectOk, ORIGIN, sender, type Handler } from "./http.ts";

/** Both libraries are mounted at `/auth`. */
const send = sender("/auth");

const option = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const rounds = option("rounds", 7);
const perRound = option("per-round", 200);
const storeKind = process.argv.find((a) => a.startsWith("--store="))?.split("=")[1] ?? "libsql";
if (storeKind !== "libsql" && storeKind !== "memory") throw new Error("--store is libsql or memory");
const dir = mkdtempSync(join(tmpdir(), "latchkey-passkey-bench-"));

const RP_ID = "localhost";
const EMAIL = "passkey@bench.test";
const PASSWORD = "correct horse battery staple";
const SECRET = "bench-passkey-0123456789abcdefghijklmnopqrstuvwxyz";

type Options = Parameters<SoftwareAuthenticator["get"]>[0] & Parameters<SoftwareAuthenticator["create"]>[0];

/** One library: how to sign up, register a passkey, start a sign-in and verify it, by its own routes. */
interface Library {
  name: string;
  handler: Handler;
  routes: {
    registerOptions: [string, string];
    registerVerify: string;
    signInOptions: [string, string];
    verify: string;
  };
  /** The options object out of an options answer. */
  optionsOf(body: unknown): Options;
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

const latchkey: Library = {
  name: "Latchkey",
  handler: createAuth({
    secret: SECRET,
    baseUrl: ORIGIN,
    database: await latchkeyStore(),
    rateLimit: { enabled: false },
    getClientIp: () => "127.0.0.1",
    plugins: [passkeys({ rpId: RP_ID, rpName: "Bench" })],
  }).handler,
  routes: {
    registerOptions: ["POST", "/passkey/register/options"],
    registerVerify: "/passkey/register/verify",
    signInOptions: ["POST", "/passkey/authenticate/options"],
    verify: "/passkey/authenticate/verify",
  },
  optionsOf: (body) => (body as { options: Options }).options,
};

const betterAuthOptions = {
  secret: SECRET,
  baseURL: ORIGIN,
  basePath: "/auth",
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins: [betterAuthPasskey({ rpID: RP_ID, rpName: "Bench", origin: ORIGIN })],
} satisfies BetterAuthOptions;
const betterAuthDb = await betterAuthDatabase(
  storeKind === "memory" ? { kind: "memory" } : { kind: "libsql", file: join(dir, "better-auth.db") },
  betterAuthOptions,
);
const betterAuthInstance = betterAuth({ ...betterAuthOptions, database: betterAuthDb.database });

const betterAuthLibrary: Library = {
  name: "Better Auth",
  handler: (request) => betterAuthInstance.handler(request),
  routes: {
    registerOptions: ["GET", "/passkey/generate-register-options"],
    registerVerify: "/passkey/verify-registration",
    signInOptions: ["GET", "/passkey/generate-authenticate-options"],
    verify: "/passkey/verify-authentication",
  },
  optionsOf: (body) => body as Options,
};

/** Signs the user up and registers one passkey of `device`; answers nothing (the passkey is in the store). */
async function prepare(lib: Library, device: SoftwareAuthenticator): Promise<void> {
  const signUp = await send(lib.handler, "POST", "/sign-up/email", { email: EMAIL, password: PASSWORD, name: "Bench" });
  const session = cookiesOf(signUp);
  await expectOk(signUp, `${lib.name} sign-up`);
  const [method, path] = lib.routes.registerOptions;
  const started = await send(lib.handler, method, path, method === "GET" ? undefined : {}, session);
  const challenge = cookiesOf(started);
  const options = lib.optionsOf(await expectOk(started, `${lib.name} register options`));
  const response = await device.create(options);
  await expectOk(
    await send(lib.handler, "POST", lib.routes.registerVerify, { response, name: "bench" }, [...session, ...challenge]),
    `${lib.name} register verify`,
  );
}

/** A sign-in up to its verify: the request body and the challenge cookie (made outside the timing). */
async function pending(lib: Library, device: SoftwareAuthenticator): Promise<{ body: unknown; cookies: string[] }> {
  const [method, path] = lib.routes.signInOptions;
  const started = await send(lib.handler, method, path, method === "GET" ? undefined : {}, []);
  const cookies = cookiesOf(started);
  const response = await device.get(lib.optionsOf(await expectOk(started, `${lib.name} sign-in options`)));
  return { body: { response }, cookies };
}

/** CPU microseconds (user + system) of each verify of one round. */
async function round(lib: Library, device: SoftwareAuthenticator): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < perRound; i++) {
    const { body, cookies } = await pending(lib, device);
    const before = process.cpuUsage();
    const res = await send(lib.handler, "POST", lib.routes.verify, body, cookies);
    const text = await res.text();
    const used = process.cpuUsage(before);
    if (!res.ok) throw new Error(`${lib.name} verify answered ${res.status}: ${text.slice(0, 200)}`);
    if (!res.headers.getSetCookie().some((c) => /session/.test(c))) throw new Error(`${lib.name} set no session`);
    out.push(used.user + used.system);
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const libraries = [latchkey, betterAuthLibrary];
const devices = new Map(libraries.map((lib) => [lib.name, new SoftwareAuthenticator({ origin: ORIGIN })]));
for (const lib of libraries) await prepare(lib, devices.get(lib.name)!);
// Warm-up: one round each, not counted (module loading, JIT).
for (const lib of libraries) await round(lib, devices.get(lib.name)!);

const perLibrary = new Map<string, number[]>(libraries.map((lib) => [lib.name, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? libraries : [...libraries].reverse();
  for (const lib of order) perLibrary.get(lib.name)!.push(mean(await round(lib, devices.get(lib.name)!)));
}

const figures = libraries.map((lib) => ({ name: lib.name, cpuUs: median(perLibrary.get(lib.name)!) }));
const ours = figures[0]!;
const theirs = figures[1]!;
await betterAuthDb.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `passkey sign-in verify on ${storeKind}, CPU per request (median of ${rounds} rounds of ${perRound}, Node ${process.version})`,
);
console.log("| library | CPU per verify | rounds (mean of each) |");
console.log("|---|---|---|");
for (const f of figures)
  console.log(
    `| ${f.name} | ${f.cpuUs.toFixed(0)} µs | ${perLibrary
      .get(f.name)!
      .map((x) => x.toFixed(0))
      .join(", ")} |`,
  );
console.log(`ratio Better Auth / Latchkey: ${(theirs.cpuUs / ours.cpuUs).toFixed(2)}`);
