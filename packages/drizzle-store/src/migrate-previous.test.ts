// `latchkey migrate` on a database made by the previous release (schema 0000_initial only) adds the API-key
// lifecycle columns and keeps every existing key working: found by its hash, used, rerolled, refilled.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKeyUseRefusal, hashSecret, type FullStore } from "@latchkey/core";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { migrateDatabase } from "./drizzle-store.ts";
import { MIGRATIONS_FOLDERS } from "./migrations.ts";
import { drizzleStore as postgresStore } from "./postgres.ts";
import { openPostgres } from "./pg/postgres-js.ts";
import { openSqlite } from "./sqlite/connection.ts";
import { drizzleStore as sqliteStore } from "./sqlite.ts";

/** The migrations folder as the previous release shipped it: only the first migration. */
function previousRelease(folder: string): string {
  const copy = mkdtempSync(join(tmpdir(), "latchkey-previous-"));
  cpSync(folder, copy, { recursive: true });
  const journalPath = join(copy, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  for (const entry of journal.entries.slice(1)) rmSync(join(copy, `${entry.tag}.sql`));
  journal.entries = journal.entries.slice(0, 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return copy;
}

const KEY = `lk_${"a".repeat(40)}`;
const T = Date.UTC(2026, 0, 1);

async function keepsWorking(store: FullStore): Promise<void> {
  try {
    const found = await store.apiKeys.findByHash(hashSecret(KEY));
    expect(found).toMatchObject({
      id: "k_old",
      locked: false,
      serverMetadata: {},
      metadata: { team: "ops" },
      remaining: 3,
      refillAmount: null,
      previousKeyHash: null,
      rerolledAt: null,
    });
    expect(apiKeyUseRefusal(found, new Date(T))).toBeNull();
    expect(await store.apiKeys.consumeUse("k_old", new Date(T + 1))).toMatchObject({ ok: true, key: { remaining: 2 } });
    // The new features work on the old row.
    await store.apiKeys.update("k_old", null, { refillAmount: 3, refillIntervalMs: 1000, lastRefillAt: new Date(T) });
    const rerolled = await store.apiKeys.reroll("k_old", "u_old", {
      keyHash: hashSecret(`lk_${"b".repeat(40)}`),
      start: "lk_bbbbb",
      graceUntil: new Date(T + 60_000),
      at: new Date(T + 2),
    });
    expect(rerolled).toMatchObject({ previousKeyHash: hashSecret(KEY), rerolledAt: new Date(T + 2) });
    expect((await store.apiKeys.findByHash(hashSecret(KEY)))?.id).toBe("k_old");
    expect(await store.apiKeys.consumeUse("k_old", new Date(T + 1000))).toMatchObject({
      ok: true,
      key: { remaining: 2, lastRefillAt: new Date(T + 1000) },
    });
  } finally {
    await store.close();
  }
}

describe("migrating a database made with the previous schema", () => {
  it("PostgreSQL: adds the columns and every existing key keeps working", async () => {
    const database = await createTestPostgresDatabase();
    try {
      const old = previousRelease(MIGRATIONS_FOLDERS.postgres);
      expect(await migrateDatabase(database.url, { migrationsFolder: old })).toEqual(["0000_initial"]);
      const client = openPostgres(database.url, 1);
      await client.unsafe(
        `insert into users (id, email, email_verified, metadata, created_at, updated_at)
           values ('u_old', 'old@example.com', true, '{}', now(), now());
         insert into api_keys (id, user_id, name, prefix, start, key_hash, enabled, metadata, permissions,
             remaining, request_count, created_at, updated_at)
           values ('k_old', 'u_old', 'legacy', 'lk_', 'lk_aaaaa', '${hashSecret(KEY)}', true, '{"team":"ops"}', '{}',
             3, 0, now(), now());`,
      );
      await client.end();
      expect(await migrateDatabase(database.url)).toEqual([
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
      ]);
      await keepsWorking(postgresStore({ url: database.url }));
    } finally {
      await database.dispose();
    }
  });

  it("libSQL: adds the columns and every existing key keeps working", async () => {
    const database = await createTestSqliteFile();
    try {
      const old = previousRelease(MIGRATIONS_FOLDERS.sqlite);
      expect(await migrateDatabase(database.url, { migrationsFolder: old })).toEqual(["0000_initial"]);
      const client = openSqlite(database.url);
      await client.executeMultiple(
        `insert into users (id, email, email_verified, metadata, created_at, updated_at)
           values ('u_old', 'old@example.com', 1, '{}', ${T}, ${T});
         insert into api_keys (id, user_id, name, prefix, start, key_hash, enabled, metadata, permissions,
             remaining, request_count, created_at, updated_at)
           values ('k_old', 'u_old', 'legacy', 'lk_', 'lk_aaaaa', '${hashSecret(KEY)}', 1, '{"team":"ops"}', '{}',
             3, 0, ${T}, ${T});`,
      );
      client.close();
      expect(await migrateDatabase(database.url)).toEqual([
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
      ]);
      await keepsWorking(sqliteStore({ url: database.url }));
    } finally {
      await database.dispose();
    }
  });
});
