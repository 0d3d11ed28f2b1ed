import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { apiKey } from "@better-auth/api-key";
import { getSchema } from "better-auth/db";
import { emailOTP, jwt } from "better-auth/plugins";
import { describe, expect, it } from "vitest";
import { getTableColumns, type Table } from "drizzle-orm";
import Database from "libsql";
import { betterAuthDatabase } from "../servers/better-auth-db.ts";
import { betterAuthSqliteSchema, type BetterAuthSchema } from "../servers/better-auth-sqlite.ts";

// The harness's own logic; no timing is asserted anywhere (numbers come only from `pnpm bench`).

describe("Better Auth on libSQL", () => {
  const options = {
    emailAndPassword: { enabled: true },
    plugins: [emailOTP({ async sendVerificationOTP() {} }), apiKey(), jwt()],
  };

  it("creates its tables through its own migrations, with the indexes they declare, on one WAL connection", async () => {
    const file = `${mkdtempSync(`${tmpdir()}/bench-ba-`)}/ba.db`;
    const db = await betterAuthDatabase({ kind: "libsql", file }, options as never);
    try {
      expect(db.description).toMatch(/Kysely adapter .* native `libsql`/);
      const reader = new Database(file, { readonly: true }) as unknown as {
        prepare(sql: string): { all(): Array<Record<string, unknown>> };
        close(): void;
      };
      const sql = reader
        .prepare("select sql from sqlite_master where sql is not null")
        .all()
        .map((r) => String(r.sql))
        .join("\n");
      const mode = reader.prepare("pragma journal_mode").all()[0];
      reader.close();
      for (const table of ["user", "session", "account", "verification", "apikey", "jwks"])
        expect(sql).toContain(`CREATE TABLE "${table}"`);
      expect(sql).toMatch(/"token" text not null unique/);
      expect(sql).toContain('CREATE INDEX "apikey_key_idx" on "apikey" ("key")');
      expect(sql).toContain('CREATE INDEX "session_userId_idx" on "session" ("userId")');
      expect(mode).toEqual({ journal_mode: "wal" });
    } finally {
      await db.close();
    }
  });

  it("gives the scale seed the encoding its Kysely adapter writes on SQLite: ISO dates, 0/1 booleans", () => {
    const { tables } = betterAuthSqliteSchema(getSchema(options as never) as BetterAuthSchema);
    const session = getTableColumns(tables.session as Table);
    const apikey = getTableColumns(tables.apikey as Table);
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    expect(session.expiresAt?.mapToDriverValue(at)).toBe("2026-01-02T03:04:05.006Z");
    expect(apikey.enabled?.mapToDriverValue(true)).toBe(1);
    expect(apikey.remaining?.mapToDriverValue(5)).toBe(5);
  });
});
