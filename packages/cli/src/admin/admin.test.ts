import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { migrateDatabase, openDrizzleStore } from "@latchkey/drizzle-store";
import { apiKeyRecord, createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { adminCommand } from "./admin.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const run = promisify(execFile);
const SUBPROCESS_TIMEOUT = { timeout: 60_000 };

async function latchkey(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      encoding: "utf8",
      env: { ...process.env, LATCHKEY_DATABASE_URL: "" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const at = new Date();
const user = (id: string, email: string, name: string | null = null) => ({
  id,
  email,
  emailVerified: true,
  name,
  image: null,
  username: null,
  metadata: {},
  appMetadata: { plan: "pro" },
  createdAt: at,
  updatedAt: at,
  banned: false,
  banReason: null,
  banExpires: null,
});
const session = (id: string, userId: string) => ({
  id,
  userId,
  tokenHash: `th-${id}`,
  expiresAt: new Date(at.getTime() + 86_400_000),
  createdAt: at,
  updatedAt: at,
  ip: null,
  userAgent: null,
  rememberMe: true,
  impersonatedBy: null,
});

/** Ada and Mallory, Mallory with two sessions and an API key. */
async function seed(url: string) {
  await migrateDatabase(url);
  const store = await openDrizzleStore(url);
  try {
    await store.users.create(user("ada", "ada@example.com", "Ada Lovelace"), []);
    await store.users.create(user("mallory", "mallory@example.com"), []);
    for (const id of ["s1", "s2"]) await store.sessions.create(session(id, "mallory"));
    await store.apiKeys.create(
      apiKeyRecord({ id: "k1", userId: "mallory", keyHash: "kh-k1", createdAt: at, updatedAt: at }),
    );
  } finally {
    await store.close();
  }
}

describe("latchkey admin", () => {
  it(
    "finds users, makes the first admin, bans (sessions end, keys disabled) and unbans",
    SUBPROCESS_TIMEOUT,
    async () => {
      const database = await createTestSqliteFile();
      try {
        await seed(database.url);
        const found = await latchkey(["admin", "find", "--database", database.url, "--email", "ADA@"]);
        expect(found).toMatchObject({ code: 0, stderr: "" });
        expect(found.stdout).toBe("ada  ada@example.com  Ada Lovelace\n1 user\n");
        const made = await latchkey(["admin", "make-admin", "--database", database.url, "--email", "ada@example.com"]);
        expect(made.stdout).toBe("ada  ada@example.com  Ada Lovelace  [admin]\n");
        const banned = await latchkey([
          "admin",
          "ban",
          `--database=${database.url}`,
          "--email",
          "mallory@example.com",
          "--reason",
          "spam",
          "--for",
          "7d",
        ]);
        expect(banned.code).toBe(0);
        expect(banned.stdout).toMatch(
          /^banned mallory {2}mallory@example\.com banned until .*: 2 session\(s\) ended, 1 key\(s\) disabled\n$/,
        );
        const store = await openDrizzleStore(database.url);
        try {
          expect((await store.users.findById("ada"))?.appMetadata).toEqual({ plan: "pro", role: "admin" });
          const mallory = (await store.users.findById("mallory"))!;
          expect(mallory).toMatchObject({ banned: true, banReason: "spam" });
          expect(mallory.banExpires!.getTime() - Date.now()).toBeGreaterThan(6 * 86_400_000);
          expect(await store.sessions.listByUser("mallory")).toEqual([]);
          expect((await store.apiKeys.findById("k1"))?.enabled).toBe(false);
          // The store refuses the banned user a session.
          expect(await store.sessions.create(session("s3", "mallory"))).toBe(false);
        } finally {
          await store.close();
        }
        const unbanned = await latchkey([
          "admin",
          "unban",
          "--database",
          database.url,
          "--email",
          "mallory@example.com",
        ]);
        expect(unbanned.stdout).toBe("unbanned mallory  mallory@example.com\n");
        const after = await openDrizzleStore(database.url);
        try {
          expect(await after.users.findById("mallory")).toMatchObject({
            banned: false,
            banReason: null,
            banExpires: null,
          });
          expect(await after.sessions.create(session("s4", "mallory"))).toBe(true);
        } finally {
          await after.close();
        }
        const nobody = await latchkey(["admin", "ban", "--database", database.url, "--email", "nobody@example.com"]);
        expect(nobody).toMatchObject({
          code: 1,
          stderr: "latchkey admin: no user with the email nobody@example.com\n",
        });
        const usage = await latchkey(["admin", "find", "--database", database.url]);
        expect(usage.code).toBe(2);
      } finally {
        await database.dispose();
      }
    },
  );

  it("PostgreSQL: a ban tells every caching instance (the user, and each impersonation the user had started)", async () => {
    const database = await createTestPostgresDatabase();
    const listener = new pg.Client({ connectionString: database.url });
    const heard: string[] = [];
    try {
      await seed(database.url);
      // Mallory, an admin once, impersonates Ada: that session is Ada's row, and the ban ends it too.
      const store = await openDrizzleStore(database.url);
      await store.sessions.create({ ...session("s3", "ada"), impersonatedBy: "mallory" });
      await store.close();
      await listener.connect();
      listener.on("notification", (message) => heard.push(...(message.payload ?? "").split("\n")));
      await listener.query("LISTEN latchkey_cache");
      const lines: string[] = [];
      const code = await adminCommand(
        ["ban", "--database", database.url, "--email", "mallory@example.com"],
        {},
        (text) => lines.push(text),
      );
      expect(code).toBe(0);
      expect(lines).toEqual(["banned mallory  mallory@example.com banned: 2 session(s) ended, 1 key(s) disabled"]);
      await listener.query("select 1");
      expect(heard).toContain("u:mallory");
      expect(heard).toContain("s:s3");
      const after = await openDrizzleStore(database.url);
      expect(await after.sessions.findByTokenHash("th-s3")).toBeNull();
      await after.close();
    } finally {
      await listener.end();
      await database.dispose();
    }
  });
});
