import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { CacheCarrier, FullStore } from "@latchkey/core";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { drizzleStore as postgresStore } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteStore } from "@latchkey/drizzle-store/sqlite";
import { testPostgresUrl } from "@latchkey/test-support";

/** Which store the HTTP suites run on: `LATCHKEY_TEST_STORE` = memory (default) | sqlite | postgres. */
export type TestStoreKind = "memory" | "sqlite" | "postgres";

export function testStoreKind(): TestStoreKind {
  const kind = process.env.LATCHKEY_TEST_STORE ?? "memory";
  if (kind !== "memory" && kind !== "sqlite" && kind !== "postgres")
    throw new Error(`LATCHKEY_TEST_STORE must be memory, sqlite or postgres (got ${kind})`);
  return kind;
}

// One migrated template per worker; every test auth gets a copy, so tests never see each other's rows.
let sqliteTemplate: Promise<string> | null = null;
let pgTemplate: Promise<{ server: string; name: string }> | null = null;

async function freshSqliteUrl(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = join(await mkdtemp(join(tmpdir(), "latchkey-http-")), "template.db");
    await migrateDatabase(`file:${file}`);
    return file;
  })();
  const template = await sqliteTemplate;
  const file = join(await mkdtemp(join(tmpdir(), "latchkey-http-")), "store.db");
  await copyFile(template, file);
  return `file:${file}`;
}

async function freshPostgresUrl(): Promise<string> {
  pgTemplate ??= (async () => {
    const server = testPostgresUrl();
    const name = `latchkey_tpl_${randomBytes(5).toString("hex")}`;
    const admin = postgres(server, { max: 1, onnotice: () => undefined });
    try {
      await admin.unsafe(`create database ${name}`);
    } finally {
      await admin.end({ timeout: 5 });
    }
    await migrateDatabase(withDatabase(server, name));
    return { server, name };
  })();
  const { server, name: template } = await pgTemplate;
  const name = `latchkey_t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(server, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`create database ${name} template ${template} strategy file_copy`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return withDatabase(server, name);
}

// The default driver (node-postgres), with small pools that close when idle: hundreds of test auths must not
// exhaust max_connections.
const openStore = (kind: "sqlite" | "postgres", url: string): FullStore =>
  kind === "sqlite" ? sqliteStore({ url }) : postgresStore({ url, maxConnections: 4, idleTimeout: 1 });

function withDatabase(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

const OPTIONAL_COUNTER_METHODS = new Set(["ping", "bind", "close"]);

/**
 * A store that becomes usable once its database is ready, so `createTestAuth()` stays synchronous:
 * every port call first awaits the fresh database.
 */
function lazyStore(kind: string, ready: Promise<FullStore>): FullStore {
  const port = (name: keyof FullStore) =>
    new Proxy(
      {},
      {
        // The optional methods of a counter store with its own connection (`ping`, `bind`, `close`) are absent
        // on database ports: the proxy must not invent them (health would call a `ping` that is not there).
        get: (_, method: string) =>
          OPTIONAL_COUNTER_METHODS.has(method)
            ? undefined
            : async (...args: unknown[]) => {
                const store = await ready;
                const target = store[name] as unknown as Record<string, (...a: unknown[]) => unknown>;
                return target[method]!(...args);
              },
      },
    );
  return {
    kind,
    users: port("users") as FullStore["users"],
    sessions: port("sessions") as FullStore["sessions"],
    accounts: port("accounts") as FullStore["accounts"],
    socialAccounts: port("socialAccounts") as FullStore["socialAccounts"],
    verifications: port("verifications") as FullStore["verifications"],
    counters: port("counters") as FullStore["counters"],
    apiKeys: port("apiKeys") as FullStore["apiKeys"],
    jwks: port("jwks") as FullStore["jwks"],
    audit: port("audit") as FullStore["audit"],
    twoFactor: port("twoFactor") as FullStore["twoFactor"],
    passkeys: port("passkeys") as FullStore["passkeys"],
    organizations: port("organizations") as FullStore["organizations"],
    transaction: async (body) => (await ready).transaction(body),
    ping: async () => (await ready).ping(),
    close: async () => (await ready).close(),
    cacheCarrier: () => lazyCarrier(ready.then((store) => store.cacheCarrier?.() ?? null)),
  };
}

/** The store's cache carrier once the store is ready (`createAuth({ cache })` asks for it synchronously). */
function lazyCarrier(carrier: Promise<CacheCarrier | null>): CacheCarrier {
  const ready = carrier.then((c) => {
    if (!c) throw new Error("the store has no cache carrier");
    return c;
  });
  ready.catch(() => undefined);
  return {
    start: (listener) => void ready.then((c) => c.start(listener)),
    publish: async (payload) => (await ready).publish(payload),
    close: async () => (await ready).close(),
  };
}

/** A fresh store of the kind this test run targets, or null for the memory store. */
export function storeForTestRun(): FullStore | null {
  return storesForTestRun(1)?.[0] ?? null;
}

/**
 * `count` stores over one fresh database of the run's kind, each with its own connections (as separate instances
 * of an application have), or null for the memory store.
 */
export function storesForTestRun(count: number): FullStore[] | null {
  const kind = testStoreKind();
  if (kind === "memory") return null;
  const url = kind === "sqlite" ? freshSqliteUrl() : freshPostgresUrl();
  return Array.from({ length: count }, () => {
    const ready = url.then((u) => openStore(kind, u));
    // Surface setup failures in the test that uses the store, not as an unhandled rejection.
    ready.catch(() => undefined);
    return lazyStore(kind, ready);
  });
}
