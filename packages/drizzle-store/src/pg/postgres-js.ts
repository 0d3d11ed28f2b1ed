import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardPorts, guardStore } from "@latchkey/core/internal";
import { drizzle as drizzlePostgresJs } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import { isPgUnavailable } from "./errors.ts";
import { portsOf } from "./store.ts";
import type { PgDatabase } from "./database.ts";

/** Opens a postgres.js client for a URL; notices (e.g. "schema already exists") are not printed. */
export function openPostgres(url: string, max = 10): Sql {
  return postgres(url, { max, onnotice: () => undefined });
}

/**
 * Builds the PostgreSQL store over a postgres.js client the caller owns; `close` ends it only when the store opened
 * it. Not the default driver: see docs/stores.md ("postgres.js") for the connection-loss crash it can still hit.
 */
export function postgresJsStore(client: Sql, ownsClient: boolean): FullStore {
  const guard = (ports: FullStorePorts) => guardPorts(ports, isPgUnavailable);
  const db = drizzlePostgresJs({ client }) as unknown as PgDatabase;
  return guardStore(
    {
      kind: "postgres",
      ...portsOf(db),
      transaction: (body) => db.transaction((tx) => body(guard(portsOf(tx as unknown as PgDatabase)))),
      async ping() {
        await client`select 1`;
      },
      async close() {
        if (ownsClient) await client.end({ timeout: 5 });
      },
    },
    isPgUnavailable,
  );
}
