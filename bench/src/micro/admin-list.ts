// The admin list at scale, side by side with Better Auth's `admin` plugin (1.7.5), in one process: the wall time of
// one page of `GET /admin/list-users` (20 users, with the total) over each library's own `(Request) => Response`
// handler, signed in as an admin, at `--users` users on libSQL and PostgreSQL (fresh databases, bulk-seeded with the
// scale seed's user rows). Two listings: every user newest first (Latchkey follows `nextCursor`, Better Auth
// `offset`, ten pages), and an email prefix that matches about a tenth of the users (`searchOperator:
// "starts_with"` for Better Auth), ten pages the same way. Rounds alternate the libraries; the figure is the median
// later page of the median round, and the first page apart (Latchkey counts the total on the first page only, and
// no further than `listUsersCountLimit`, 100,000 by default: decision 0082; Better Auth counts it in full on every
// page).
//   node --import tsx src/micro/admin-list.ts [--users=1000000] [--rounds=5] [--stores=libsql,postgres]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { admin, type Store } from "@latchkey/core";
import { drizzleStore as pgStore, migrateDatabase as migratePg } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteStore, migrateDatabase as migrateSqlite } from "@latchkey/drizzle-store/sqlite";
import { createAuth } from "@latchkey/hono-adapter";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { admin as betterAuthAdmin } from "better-auth/plugins";
import { startTestPostgres } from "../../../test/postgres-server.ts";
import { betterAuthDatabase, betterAuthTables, type BetterAuthStore } from "../servers/better-auth-db.ts";
import { seedBetterAuthScale, seedLatchkeyScale, type SeedTarget } from "../scale/seed.ts";
import { cookiesOf, expectOk, ORIGIN, sender, type Handler } from "./http.ts";

const option = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const USERS = option("users", 1_000_000);
const ROUNDS = option("rounds", 5);
const PAGES = 10;
const stores = (process.argv.find((a) => a.startsWith("--stores="))?.split("=")[1] ?? "libsql,postgres").split(",");
const SECRET = "bench-admin-0123456789abcdefghijklmnopqrstuvwxyz";
const PASSWORD = "correct horse battery staple";
// The scale seed's emails are `scale-<lib>-<i>@seed.bench`: "…-1" starts a tenth of them (1, 10-19, 100-199, …).
const PREFIX = (lib: "lk" | "ba") => `scale-${lib}-1`;

const sizes = { users: USERS, sessions: 0, apiKeys: 0, audit: 0 };

/** A GET of the list under its full path (`/auth/...`, `/api/auth/...`), signed in: the JSON answer. */
async function get(handler: Handler, path: string, cookies: string[]): Promise<unknown> {
  return expectOk(await send(handler, "GET", path, undefined, cookies), path);
}

/** Paths here are whole: Latchkey mounts at `/auth`, Better Auth at `/api/auth`. */
const send = sender("");

interface Side {
  name: string;
  /** Ten pages of a listing, each timed; the times in ms. */
  pages(listing: "newest" | "prefix"): Promise<number[]>;
  close(): Promise<void>;
}

async function latchkeySide(store: Store): Promise<Side> {
  const auth = createAuth({
    secret: SECRET,
    baseUrl: ORIGIN,
    database: store,
    rateLimit: { enabled: false },
    plugins: [admin()],
  });
  const handler = auth.handler as Handler;
  const up = await send(handler, "POST", "/auth/sign-up/email", { email: "admin@bench.test", password: PASSWORD });
  if (up.status !== 200) throw new Error(`Latchkey sign-up: ${up.status} ${await up.text()}`);
  const { user } = (await up.json()) as { user: { id: string } };
  await auth.api.updateUser(user.id, { appMetadata: { role: "admin" } });
  const cookies = cookiesOf(up);
  return {
    name: "Latchkey",
    async pages(listing) {
      const times: number[] = [];
      let cursor: string | null = null;
      for (let p = 0; p < PAGES; p++) {
        const query = new URLSearchParams({ limit: "20" });
        if (listing === "prefix") query.set("searchValue", PREFIX("lk"));
        if (cursor) query.set("cursor", cursor);
        const t = performance.now();
        const page = (await get(handler, `/auth/admin/list-users?${query}`, cookies)) as {
          users: unknown[];
          nextCursor: string | null;
        };
        times.push(performance.now() - t);
        if (page.users.length !== 20) throw new Error(`Latchkey ${listing} page ${p}: ${page.users.length} users`);
        cursor = page.nextCursor;
      }
      return times;
    },
    close: () => store.close(),
  };
}

async function betterAuthSide(kind: BetterAuthStore, target: SeedTarget): Promise<Side> {
  const plugins = [betterAuthAdmin()];
  const base: BetterAuthOptions = {
    secret: SECRET,
    baseURL: ORIGIN,
    emailAndPassword: { enabled: true },
    plugins,
    rateLimit: { enabled: false },
  };
  const db = await betterAuthDatabase(kind, base);
  const options: BetterAuthOptions = { ...base, database: db.database };
  await seedBetterAuthScale(target, betterAuthTables(options).tables, sizes);
  const auth = betterAuth(options);
  const up = await auth.api.signUpEmail({
    body: { email: "admin@bench.test", password: PASSWORD, name: "Admin" },
    asResponse: true,
  });
  const { user } = (await up.json()) as { user: { id: string } };
  const context = await auth.$context;
  await context.internalAdapter.updateUser(user.id, { role: "admin" });
  const cookies = cookiesOf(up);
  const handler = auth.handler as Handler;
  return {
    name: "Better Auth",
    async pages(listing) {
      const times: number[] = [];
      for (let p = 0; p < PAGES; p++) {
        const query = new URLSearchParams({
          limit: "20",
          offset: String(p * 20),
          sortBy: "createdAt",
          sortDirection: "desc",
        });
        if (listing === "prefix") {
          query.set("searchValue", PREFIX("ba"));
          query.set("searchField", "email");
          query.set("searchOperator", "starts_with");
          query.set("sortBy", "email");
          query.set("sortDirection", "asc");
        }
        const t = performance.now();
        const page = (await get(handler, `/api/auth/admin/list-users?${query}`, cookies)) as { users: unknown[] };
        times.push(performance.now() - t);
        if (page.users.length !== 20) throw new Error(`Better Auth ${listing} page ${p}: ${page.users.length} users`);
      }
      return times;
    },
    close: () => db.close(),
  };
}

/** A new empty database on the test cluster: its URL. */
async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const dir = mkdtempSync(join(tmpdir(), "latchkey-admin-bench-"));
const pgServer = stores.includes("postgres") ? await startTestPostgres() : null;
try {
  console.log(
    `Admin list at ${USERS.toLocaleString("en-US")} users: pages of 20, ${PAGES} per listing, ${ROUNDS} rounds (medians; Better Auth counts the total on every page)`,
  );
  for (const storeKind of stores) {
    let lk: Side;
    let ba: Side;
    if (storeKind === "libsql") {
      const lkFile = join(dir, "latchkey.db");
      await migrateSqlite(`file:${lkFile}`);
      await seedLatchkeyScale({ dialect: "sqlite", file: lkFile }, sizes);
      lk = await latchkeySide(sqliteStore({ url: `file:${lkFile}` }));
      const baFile = join(dir, "better-auth.db");
      ba = await betterAuthSide({ kind: "libsql", file: baFile }, { dialect: "sqlite", file: baFile });
    } else {
      const lkUrl = await createDatabase(pgServer!.url, "admin_list_latchkey");
      await migratePg(lkUrl);
      await seedLatchkeyScale({ dialect: "postgres", url: lkUrl }, sizes);
      lk = await latchkeySide(pgStore({ url: lkUrl }));
      const baUrl = await createDatabase(pgServer!.url, "admin_list_better_auth");
      ba = await betterAuthSide({ kind: "postgres", url: baUrl }, { dialect: "postgres", url: baUrl });
    }
    for (const listing of ["newest", "prefix"] as const) {
      const first: Record<string, number[]> = { Latchkey: [], "Better Auth": [] };
      const later: Record<string, number[]> = { Latchkey: [], "Better Auth": [] };
      for (let r = 0; r < ROUNDS; r++)
        for (const side of r % 2 === 0 ? [lk, ba] : [ba, lk]) {
          const times = await side.pages(listing);
          first[side.name]!.push(times[0]!);
          later[side.name]!.push(median(times.slice(1)));
        }
      const what = listing === "newest" ? "every user, newest first" : "an email prefix (a tenth of the users)";
      for (const [page, figures] of [
        ["first page (Latchkey's with the total)", first],
        ["later pages", later],
      ] as const) {
        const l = median(figures.Latchkey!);
        const b = median(figures["Better Auth"]!);
        console.log(
          `${storeKind}, ${what}, ${page}: Latchkey ${l.toFixed(2)} ms, Better Auth ${b.toFixed(2)} ms; ratio ${(b / l).toFixed(2)}`,
        );
      }
    }
    await lk.close();
    await ba.close();
  }
} finally {
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
