import { MongoClient } from "mongodb";
import { resolveDatabaseName } from "./connection.ts";
import { ensureIndexes, INDEX_SPECS } from "./indexes.ts";

/**
 * Options of `migrateMongo`.
 *
 * @example
 * import type { MigrateMongoOptions } from "@latchkey/mongo-store";
 * const options: MigrateMongoOptions = { dbName: "auth", log: (line) => process.stdout.write(`${line}\n`) };
 */
export interface MigrateMongoOptions {
  /** Receives each applied change as it happens, and one summary line when there was nothing to do. Default: console.log. */
  log?: (line: string) => void;
  /** Database name; default: the connection string's database, else `latchkey` (the same rule as `mongoStore`). */
  dbName?: string;
}

/**
 * Creates the indexes the MongoDB store relies on: unique email, username (when set), session token hash, API-key
 * hash, JWK generation, verification identifier, one credential account per user; lookup indexes; and TTL cleanup
 * of expired sessions, verifications and counters (a day after expiry). Idempotent: returns the changes it
 * applied, so a second run returns `[]`.
 *
 * @example
 * import { migrateMongo } from "@latchkey/mongo-store";
 * const applied = await migrateMongo("mongodb://localhost:27017/app", { log: (line) => console.log(line) });
 */
export async function migrateMongo(url: string, options: MigrateMongoOptions = {}): Promise<string[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = new MongoClient(url);
  try {
    await client.connect();
    const db = client.db(resolveDatabaseName(url, options.dbName));
    const applied = await ensureIndexes(db, INDEX_SPECS, (line) => log(`mongodb ${db.databaseName}: ${line}`));
    if (applied.length === 0)
      log(`mongodb ${db.databaseName}: all ${INDEX_SPECS.length} indexes in place, nothing to do`);
    return applied;
  } finally {
    await client.close();
  }
}
