// Brings "vitest" into scope for the ProvidedContext augmentation below.
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./postgres-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of a PostgreSQL database for tests; null when none could be started (see `latchkeyPgError`). */
    latchkeyPgUrl: string | null;
    latchkeyPgError: string | null;
  }
}

/**
 * Gives every test project a real PostgreSQL: `LATCHKEY_TEST_PG_URL` when set, else a throwaway cluster that
 * lives as long as this run. A failure to start is not thrown here (it would stop projects that need no
 * database); it is handed to the tests that need one, which then fail with this reason.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.LATCHKEY_TEST_PG_URL;
  if (external) {
    project.provide("latchkeyPgUrl", external);
    project.provide("latchkeyPgError", null);
    return undefined;
  }
  try {
    const server = await startTestPostgres();
    project.provide("latchkeyPgUrl", server.url);
    project.provide("latchkeyPgError", null);
    return () => server.stop();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    project.provide("latchkeyPgUrl", null);
    project.provide("latchkeyPgError", `could not start a test PostgreSQL: ${reason}`);
    return undefined;
  }
}
