import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { memoryStore } from "@latchkey/memory-store";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { drizzleStore } from "@latchkey/drizzle-store/postgres";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import { createTestAuth } from "../../test/test-auth.ts";

// An unreachable or dying database: 503 DATABASE_UNAVAILABLE with Retry-After and no driver text, within the
// configured bound; /health says so; the process survives terminated connections and recovers by itself.

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function expectUnavailable(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("5");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(JSON.parse(text)).toEqual({
    code: "DATABASE_UNAVAILABLE",
    message: "The database is unavailable; try again shortly",
  });
  expect(text).not.toMatch(/ECONN|postgres|pg|timeout|127\.0\.0\.1|at .*\.js/i);
}

describe("a database that cannot be reached", () => {
  it("refused connections: every endpoint answers 503 at once (not after connectTimeout), /health too", async () => {
    // "At once" measured against the configured bound: a refusal handled as a timeout would take all of it, so
    // each answer must come in under half of it (the other half is margin for a loaded machine).
    const connectTimeoutS = 20;
    const store = drizzleStore({
      url: `postgres://latchkey@127.0.0.1:${await closedPort()}/latchkey`,
      connectTimeout: connectTimeoutS,
    });
    cleanups.push(() => store.close());
    const t = createTestAuth({ store });
    const timed = async (request: Promise<Response>) => {
      const started = Date.now();
      await expectUnavailable(await request);
      expect(Date.now() - started).toBeLessThan((connectTimeoutS * 1000) / 2);
    };
    await timed(
      t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "long enough pw" } }),
    );
    await timed(
      t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: "long enough pw" } }),
    );
    await timed(t.request("GET", "/get-session", { headers: { authorization: `Bearer ${"a".repeat(43)}` } }));
    await timed(t.request("GET", "/health"));
  });

  it("a server that accepts and never answers: 503 within connectTimeout", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    const port = await listen(silent);
    cleanups.push(
      () =>
        new Promise((resolve) => {
          for (const s of sockets) s.destroy();
          silent.close(resolve);
        }),
    );
    const connectTimeoutS = 1;
    const store = drizzleStore({
      url: `postgres://latchkey@127.0.0.1:${port}/latchkey`,
      connectTimeout: connectTimeoutS,
    });
    cleanups.push(() => store.close());
    const t = createTestAuth({ store });
    // Each answer waits for the connect timeout (never less: the server accepted, so only the timer ends the
    // wait) and not much longer: the timeout plus a margin of one more timeout for a loaded machine.
    const timed = async (request: Promise<Response>) => {
      const started = Date.now();
      await expectUnavailable(await request);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(connectTimeoutS * 1000 - 5); // Date.now() rounding on both ends
      expect(took).toBeLessThan(2 * connectTimeoutS * 1000);
    };
    await timed(t.request("GET", "/health"));
    await timed(
      t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "long enough pw" } }),
    );
  });
});

describe("connections that die under the store", () => {
  let db: TestDatabase;
  it("pg_terminate_backend of every connection: no crash, at most 503s, then recovery by itself", async () => {
    db = await createTestPostgresDatabase();
    cleanups.push(() => db.dispose());
    await migrateDatabase(db.url);
    const store = drizzleStore({ url: db.url, maxConnections: 4 });
    const t = createTestAuth({ store });
    const { token } = await t.signUp("ada@example.com");
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      // Warm connections (idle in the pool), then kill them all: their `error` events must not crash the process.
      await Promise.all(
        Array.from({ length: 4 }, () =>
          t.request("GET", "/get-session", { headers: { authorization: `Bearer ${token}` } }),
        ),
      );
      const killed = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          t.request("GET", "/get-session", { headers: { authorization: `Bearer ${token}` } }),
        ),
      );
      for (const res of answers) {
        statuses.push(res.status);
        if (res.status === 503) await expectUnavailable(res);
      }
    }
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    // Recovery: the pool replaced the dead connections.
    const after = await t.request("GET", "/get-session", { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(200);
    expect((await t.request("GET", "/health")).status).toBe(200);
    // Shutdown: close drains the pool; afterwards the database is unavailable to this auth.
    await t.auth.close();
    await expectUnavailable(await t.request("GET", "/health"));
  });
});

describe("GET /health", () => {
  it("answers 200 {status: ok} when the store answers, is not rate limited, and is in the OpenAPI document with the 503", async () => {
    const t = createTestAuth({ store: memoryStore(), rateLimit: { window: "1m", max: 2 } });
    for (let i = 0; i < 5; i++) {
      const res = await t.request("GET", "/health");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    }
    const doc = (await (await t.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    expect(doc.paths["/health"]?.get?.responses["503"]?.description).toContain("DATABASE_UNAVAILABLE");
    expect(doc.paths["/sign-in/email"]?.post?.responses["503"]?.description).toContain("DATABASE_UNAVAILABLE");
  });
});
