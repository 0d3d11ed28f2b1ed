import { describe, expect, it } from "vitest";
import { migrateDatabase } from "./drizzle-store.ts";
import { openPostgres } from "./pg/postgres-js.ts";
import { openSqlite } from "./sqlite/connection.ts";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";

const TABLES = [
  "accounts",
  "api_keys",
  "audit_events",
  "counters",
  "invitations",
  "jwks",
  "members",
  "organizations",
  "passkeys",
  "sessions",
  "two_factor",
  "users",
  "verifications",
];
const MIGRATIONS = [
  "0000_initial",
  "0001_api_key_lifecycle",
  "0002_session_remember_me",
  "0003_app_metadata",
  "0004_counters_reset_at_index",
  "0005_partial_nullable_indexes",
  "0006_two_factor",
  "0007_social_accounts",
  "0008_passkeys",
  "0009_admin",
  "0010_organizations",
  "0011_impersonation_index",
  "0012_organization_api_keys",
];

describe("migrateDatabase", () => {
  it("applies the schema to a fresh PostgreSQL database once; the second run applies nothing", async () => {
    const database = await createTestPostgresDatabase();
    try {
      const lines: string[] = [];
      expect(await migrateDatabase(database.url, { log: (line) => lines.push(line) })).toEqual(MIGRATIONS);
      expect(await migrateDatabase(database.url, { log: (line) => lines.push(line) })).toEqual([]);
      expect(lines).toEqual([...MIGRATIONS.map((m) => `applied ${m}`), "nothing to apply: the schema is up to date"]);
      const client = openPostgres(database.url, 1);
      const rows = await client<{ table_name: string }[]>`
        select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
      // The sweep deletes ended counters by reset_at: an index, not a pass over every counter.
      const indexes = await client<{ indexdef: string }[]>`
        select indexdef from pg_indexes where tablename = 'counters' and indexname = 'counters_reset_at_idx'`;
      await client.end();
      expect(rows.map((r) => r.table_name)).toEqual(TABLES);
      expect(indexes.map((r) => r.indexdef)).toEqual([
        expect.stringMatching(/ON public\.counters USING btree \(reset_at\)/),
      ]);
    } finally {
      await database.dispose();
    }
  });

  it("serialises concurrent PostgreSQL migrators: one applies, the others find nothing to do", async () => {
    const database = await createTestPostgresDatabase();
    try {
      const results = await Promise.all([1, 2, 3].map(() => migrateDatabase(database.url)));
      expect(results.flat()).toEqual(MIGRATIONS);
    } finally {
      await database.dispose();
    }
  });

  it("applies the schema to a fresh libSQL file once; the second run applies nothing", async () => {
    const database = await createTestSqliteFile();
    try {
      expect(await migrateDatabase(database.url)).toEqual(MIGRATIONS);
      expect(await migrateDatabase({ url: database.url })).toEqual([]);
      const client = openSqlite(database.url);
      const { rows } = await client.execute(
        "select name from sqlite_master where type = 'table' and name not like '\\_\\_%' escape '\\' order by name",
      );
      const index = await client.execute(
        "select tbl_name, sql from sqlite_master where type = 'index' and name = 'counters_reset_at_idx'",
      );
      client.close();
      expect(rows.map((r) => r.name)).toEqual(TABLES);
      expect(index.rows.map((r) => [r.tbl_name, r.sql])).toEqual([
        ["counters", "CREATE INDEX `counters_reset_at_idx` ON `counters` (`reset_at`)"],
      ]);
    } finally {
      await database.dispose();
    }
  });

  it("rejects a URL of another database", async () => {
    await expect(migrateDatabase("mysql://localhost/db")).rejects.toThrow(
      /postgres:\/\/, postgresql:\/\/, file: or libsql:\/\//,
    );
  });
});
