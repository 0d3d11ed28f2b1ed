import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKeys, type FullStore } from "@latchkey/core";
import { drizzleStore as pgDrizzleStore, migrateDatabase as migratePg } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteDrizzleStore, migrateDatabase as migrateSqlite } from "@latchkey/drizzle-store/sqlite";
import { createAuth } from "@latchkey/hono-adapter";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import Database from "libsql";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  betterAuthDatabase,
  betterAuthPlugins,
  betterAuthTables,
  type BetterAuthStore,
} from "../servers/better-auth-db.ts";
import {
  betterAuthApiKey,
  betterAuthSessionToken,
  betterAuthUserId,
  EXPIRED_EVERY,
  latchkeyApiKey,
  latchkeySessionToken,
  latchkeyUserId,
  seedEmail,
  sizesFor,
} from "./rows.ts";
import { seedBetterAuthScale, seedLatchkeyScale, type SeedTarget } from "./seed.ts";
import { LATCHKEY, plansOn } from "./explain.ts";

declare module "vitest" {
  // Provided by the workspace's global setup (test/global-setup.ts): the run's throwaway PostgreSQL.
  export interface ProvidedContext {
    latchkeyPgUrl: string | null;
    latchkeyPgError: string | null;
  }
}

// The scale seed at a tiny size: it writes the counts it claims, and the rows are valid for each library's own
// code (sessions found by their token, API keys verified, expired rows swept). No timing is asserted.

const sizes = sizesFor(100); // 100 users, 100 sessions, 10 API keys, 100 audit rows
const now = Date.now();
const folders: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function sqliteFile(): string {
  const folder = mkdtempSync(join(tmpdir(), "bench-seed-"));
  folders.push(folder);
  return join(folder, "seed.db");
}

async function postgresDatabase(): Promise<string> {
  const base = inject("latchkeyPgUrl");
  if (!base) throw new Error(inject("latchkeyPgError") ?? "no test PostgreSQL");
  const name = `bench_seed_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function counts(target: SeedTarget, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (target.dialect === "sqlite") {
    const db = new Database(target.file) as unknown as {
      prepare(sql: string): { get(): { n: number } };
      close(): void;
    };
    for (const table of tables) out[table] = Number(db.prepare(`select count(*) as n from "${table}"`).get().n);
    db.close();
    return out;
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  for (const table of tables)
    out[table] = Number((await client.query(`select count(*) as n from "${table}"`)).rows[0].n);
  await client.end();
  return out;
}

const expiredOf = (count: number) => Math.floor(count / EXPIRED_EVERY);

describe.each(["sqlite", "postgres"] as const)("scale seed on %s", (dialect) => {
  it("Latchkey: writes the claimed rows, which its own store and API read, verify and sweep", async () => {
    let target: SeedTarget;
    let store: FullStore;
    if (dialect === "sqlite") {
      const file = sqliteFile();
      await migrateSqlite(`file:${file}`);
      target = { dialect, file };
      store = sqliteDrizzleStore({ url: `file:${file}` });
    } else {
      const url = await postgresDatabase();
      await migratePg(url);
      target = { dialect, url };
      store = pgDrizzleStore({ url });
    }
    cleanups.push(() => store.close());

    const report = await seedLatchkeyScale(target, sizes, now);
    expect(report.rows).toEqual({ users: 100, sessions: 100, api_keys: 10, audit_events: 100 });
    expect(await counts(target, ["users", "sessions", "api_keys", "audit_events"])).toEqual(report.rows);

    const auth = createAuth({
      secret: "s".repeat(48),
      database: store,
      baseUrl: "http://localhost",
      plugins: [apiKeys()],
    });
    // A seeded session is live for the library's own validation, with its user.
    const session = await auth.api.getSession(latchkeySessionToken(7));
    expect(session?.user.email).toBe(seedEmail("lk", 7));
    expect(session?.session.userId).toBe(latchkeyUserId(7));
    // An expired one is not (row 9 is every tenth).
    expect(await auth.api.getSession(latchkeySessionToken(9))).toBeNull();
    // Keys verify through the real hot path: key 0 has a quota (one use consumed), key 1 is unlimited.
    const metered = await auth.api.verifyApiKey({ key: latchkeyApiKey(0) });
    expect(metered).toMatchObject({ valid: true, apiKey: { remaining: 999_999 } });
    expect(await auth.api.verifyApiKey({ key: latchkeyApiKey(1) })).toMatchObject({
      valid: true,
      apiKey: { remaining: null },
    });
    expect(await auth.api.verifyApiKey({ key: latchkeyApiKey(9) })).toMatchObject({
      valid: false,
      error: { code: "KEY_EXPIRED" },
    });
    // Audit rows are listed for their user.
    expect((await store.audit.list({ userId: latchkeyUserId(5), limit: 10, cursor: null })).items).toHaveLength(1);
    // The sweeps find exactly the expired rows the seed says it wrote (less session 9, which validation deleted).
    expect(await store.sessions.deleteExpired(new Date())).toBe(expiredOf(sizes.sessions) - 1);
    expect((await auth.api.deleteExpiredApiKeys()).deleted).toBe(expiredOf(sizes.apiKeys));
    // The admin list reads the seeded users: an email prefix in its order, counted.
    const page = await store.users.listPage({
      search: { field: "email", prefix: "scale-lk-1" },
      limit: 5,
      cursor: null,
    });
    // Byte order: "scale-lk-10@" sorts before "scale-lk-1@" ("0" < "@").
    expect(page.items.map((u) => u.email)).toEqual([10, 11, 12, 13, 14].map((i) => seedEmail("lk", i)));
    expect(await store.users.count({ field: "email", prefix: "scale-lk-1" })).toBe(11);
    // On SQLite the plans are the planner's rules, whatever the table's size: each admin statement is an index search.
    if (target.dialect === "sqlite") {
      const admin = LATCHKEY.filter((s) => s.name.startsWith("admin list-users"));
      for (const plan of await plansOn(target, admin, now)) {
        expect(plan, plan).toMatch(/USING (COVERING )?INDEX users_/);
        expect(plan, plan).not.toMatch(/SCAN users\b(?! USING)/);
      }
    }
  });

  it("Better Auth: writes the claimed rows into its own tables, which it reads and verifies", async () => {
    const options = {
      secret: "s".repeat(48),
      baseURL: "http://localhost",
      emailAndPassword: { enabled: true },
      plugins: betterAuthPlugins(false, () => undefined),
      logger: { level: "error" as const },
    } satisfies BetterAuthOptions;
    let store: BetterAuthStore;
    let target: SeedTarget;
    if (dialect === "sqlite") {
      const file = sqliteFile();
      store = { kind: "libsql", file };
      target = { dialect, file };
    } else {
      const url = await postgresDatabase();
      store = { kind: "postgres", url };
      target = { dialect, url };
    }
    const db = await betterAuthDatabase(store, options as BetterAuthOptions);
    cleanups.push(() => db.close());

    const report = await seedBetterAuthScale(target, betterAuthTables(options as BetterAuthOptions).tables, sizes, now);
    expect(report.rows).toEqual({ user: 100, session: 100, apikey: 10 });
    expect(await counts(target, ["user", "session", "apikey"])).toEqual(report.rows);

    const auth = betterAuth({ ...options, database: db.database });
    const ctx = await auth.$context;
    const found = await ctx.internalAdapter.findSession(betterAuthSessionToken(7));
    expect(found?.user.email).toBe(seedEmail("ba", 7));
    expect(found?.session.userId).toBe(betterAuthUserId(7));
    const metered = await auth.api.verifyApiKey({ body: { key: betterAuthApiKey(0) } });
    expect(metered).toMatchObject({ valid: true, key: { remaining: 999_999 } });
    expect(await auth.api.verifyApiKey({ body: { key: betterAuthApiKey(1) } })).toMatchObject({ valid: true });
    expect((await auth.api.verifyApiKey({ body: { key: betterAuthApiKey(9) } })).valid).toBe(false);
    // Its own sweep finds the seed's expired keys and only those: the dates are stored as its adapter compares them
    // (on SQLite, epoch numbers would all sort before the ISO text of now, and every dated key would go).
    await auth.api.deleteAllExpiredApiKeys();
    expect(await counts(target, ["apikey"])).toEqual({ apikey: sizes.apiKeys - expiredOf(sizes.apiKeys) });
  });
});
