import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ApiKeyRecord, FullStore } from "@latchkey/core";
import { migrateDatabase, openDrizzleStore } from "@latchkey/drizzle-store";
import { apiKeyRecord, createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sweep } from "./sweep.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const run = promisify(execFile);

async function latchkey(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      encoding: "utf8",
      env: { ...process.env, LATCHKEY_DATABASE_URL: "", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each run of the bin starts Node (up to a second on a loaded two-core machine).
const SUBPROCESS_TIMEOUT = { timeout: 60_000 };
const DAY = 86_400_000;
const LONG_AGO = new Date(Date.now() - 400 * DAY);

/** Rows past their life in every table, plus one live row of each kind; returns the ids to look up afterwards. */
async function seed(url: string) {
  await migrateDatabase(url);
  const store: FullStore = await openDrizzleStore(url);
  try {
    const user = (id: string, emailVerified: boolean, createdAt: Date) => ({
      id,
      email: `${id}@example.com`,
      emailVerified,
      name: null,
      image: null,
      username: null,
      metadata: {},
      appMetadata: {},
      createdAt,
      updatedAt: createdAt,
      banned: false,
      banReason: null,
      banExpires: null,
    });
    await store.users.create(user("kept", true, LONG_AGO), []);
    await store.users.create(user("stale", false, LONG_AGO), []);
    for (let i = 0; i < 5; i++) {
      await store.sessions.create({
        id: `s${i}`,
        userId: "kept",
        tokenHash: `th${i}`,
        expiresAt: i === 0 ? new Date(Date.now() + DAY) : LONG_AGO,
        createdAt: LONG_AGO,
        updatedAt: LONG_AGO,
        ip: null,
        userAgent: null,
        rememberMe: true,
        impersonatedBy: null,
      });
      await store.counters.hit(`rl:/sign-in/email:192.0.2.${i}`, 1000, LONG_AGO.getTime());
      await store.verifications.issue({
        id: `v${i}`,
        identifier: `otp:sign-in:${i}@example.com`,
        valueHash: `vh${i}`,
        attemptCount: 0,
        expiresAt: LONG_AGO,
        createdAt: LONG_AGO,
        userId: null,
        payload: null,
      });
      await store.audit.append({
        id: `a${i}`,
        type: "SignInFailed",
        userId: null,
        identifier: null,
        ip: null,
        userAgent: null,
        at: i === 0 ? new Date() : LONG_AGO,
        data: {},
      });
    }
    const key = (id: string, over: Partial<ApiKeyRecord>): ApiKeyRecord =>
      apiKeyRecord({
        id,
        userId: "kept",
        name: null,
        keyHash: `kh-${id}`,
        createdAt: LONG_AGO,
        updatedAt: LONG_AGO,
        ...over,
      });
    await store.apiKeys.create(key("k1", { expiresAt: LONG_AGO }));
    // Rerolled long ago with a grace that ended: the old value is cleared, the key stays.
    await store.apiKeys.create(
      key("k2", { previousKeyHash: "kh-old", previousKeyExpiresAt: LONG_AGO, rerolledAt: LONG_AGO }),
    );
  } finally {
    await store.close();
  }
}

async function rowsLeft(url: string) {
  const store = await openDrizzleStore(url);
  try {
    const now = new Date();
    return {
      expiredCounters: await store.counters.deleteExpired(now.getTime()),
      expiredSessions: await store.sessions.deleteExpired(now),
      liveSession: (await store.sessions.findByTokenHash("th0")) !== null,
      expiredVerifications: await store.verifications.deleteExpired(now),
      oldAudit: await store.audit.deleteBefore(new Date(now.getTime() - 90 * DAY)),
      audit: (await store.audit.list({ userId: null, limit: 10, cursor: null })).items.length,
      apiKey: await store.apiKeys.findById("k1"),
      rerolled: (await store.apiKeys.findById("k2"))?.previousKeyHash ?? null,
      kept: (await store.users.findById("kept")) !== null,
      stale: (await store.users.findById("stale")) !== null,
    };
  } finally {
    await store.close();
  }
}

const CLEAN = {
  expiredCounters: 0,
  expiredSessions: 0,
  liveSession: true,
  expiredVerifications: 0,
  oldAudit: 0,
  audit: 1,
  apiKey: null,
  rerolled: null,
  kept: true,
};

describe("latchkey sweep", () => {
  it("sweeps a libSQL file given by --database and prints what each table lost", SUBPROCESS_TIMEOUT, async () => {
    const database = await createTestSqliteFile();
    try {
      await seed(database.url);
      const result = await latchkey(["sweep", "--database", database.url, "--batch-size", "2"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toBe(
        [
          `Sweeping ${database.url}`,
          "counters: 5 removed",
          "sessions: 4 removed",
          "verifications: 5 removed",
          "apiKeys: 1 removed",
          "apiKeyRerolls: 1 removed",
          "auditEvents: 4 removed",
          "unverifiedUsers: 0 removed",
          "",
        ].join("\n"),
      );
      // Unverified users stay unless asked for.
      expect(await rowsLeft(database.url)).toEqual({ ...CLEAN, stale: true });
    } finally {
      await database.dispose();
    }
  });

  it(
    "reads LATCHKEY_DATABASE_URL (PostgreSQL) and deletes unverified users when told",
    SUBPROCESS_TIMEOUT,
    async () => {
      const database = await createTestPostgresDatabase();
      try {
        await seed(database.url);
        const result = await latchkey(["sweep", "--delete-unverified-after", "7d"], {
          LATCHKEY_DATABASE_URL: database.url,
        });
        expect(result.code).toBe(0);
        expect(result.stdout).toContain("sessions: 4 removed\n");
        expect(result.stdout).toContain("unverifiedUsers: 1 removed\n");
        expect(await rowsLeft(database.url)).toEqual({ ...CLEAN, stale: false });
        // `sweep()` from code: a second pass finds nothing.
        expect(await sweep(database.url, { deleteUnverifiedAfter: "7d" })).toEqual({
          counters: 0,
          sessions: 0,
          verifications: 0,
          apiKeys: 0,
          apiKeyRerolls: 0,
          auditEvents: 0,
          unverifiedUsers: 0,
        });
      } finally {
        await database.dispose();
      }
    },
  );

  it("PostgreSQL: publishes a cache invalidation for each user and API key it deletes (issue 48 item 18)", async () => {
    const database = await createTestPostgresDatabase();
    // A running instance's cache carrier, as far as the sweep can tell: a LISTEN on the channel.
    const listener = new pg.Client({ connectionString: database.url });
    const heard: string[] = [];
    try {
      await seed(database.url);
      await listener.connect();
      listener.on("notification", (message) => heard.push(...(message.payload ?? "").split("\n")));
      await listener.query("LISTEN latchkey_cache");
      await sweep(database.url, { deleteUnverifiedAfter: "7d" });
      // NOTIFY is delivered once the sweep's statements committed; a round trip on the listener lets it arrive.
      await listener.query("select 1");
      expect(heard).toEqual(expect.arrayContaining(["u:stale", "k:k1"]));
      expect(heard).not.toContain("u:kept");
    } finally {
      await listener.end();
      await database.dispose();
    }
  });

  it("keeps audit rows with --audit-retention never, and explains bad usage", SUBPROCESS_TIMEOUT, async () => {
    const database = await createTestSqliteFile();
    try {
      await seed(database.url);
      const kept = await latchkey(["sweep", `--database=${database.url}`, "--audit-retention", "never"]);
      expect(kept.stdout).toContain("auditEvents: 0 removed\n");
      const none = await latchkey(["sweep"]);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("pass --database <url> or set LATCHKEY_DATABASE_URL");
      const mysql = await latchkey(["sweep", "--database", "mysql://localhost/db"]);
      expect(mysql.code).toBe(2);
      // A keyword DSN is echoed with its password masked (issue 50, item 6).
      const dsn = await latchkey(["sweep", "--database", "host=localhost password='hunter 4' dbname=app"]);
      expect(dsn.code).toBe(2);
      expect(dsn.stderr).toContain("unsupported database URL host=localhost password=*** dbname=app");
      expect(dsn.stderr + dsn.stdout).not.toContain("hunter");
      const slash = await latchkey(["sweep", "--database", "postgres://app:hunter/5@127.0.0.1:1/auth"]);
      expect(slash.code).toBe(1);
      expect(slash.stdout).toContain("Sweeping postgres://app:***@127.0.0.1:1/auth");
      expect(slash.stderr + slash.stdout).not.toContain("hunter");
      const badBatch = await latchkey(["sweep", "--database", database.url, "--batch-size", "0"]);
      expect(badBatch).toMatchObject({ code: 1, stderr: expect.stringContaining("batchSize must be an integer") });
    } finally {
      await database.dispose();
    }
  });
});
