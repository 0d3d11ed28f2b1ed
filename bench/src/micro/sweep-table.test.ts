import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzleStore, migrateDatabase, schema } from "@latchkey/drizzle-store/sqlite";
import { describe, expect, it } from "vitest";
import { load, writerFor } from "../scale/seed.ts";
import {
  parseSweepArgs,
  SWEEP_KINDS,
  SWEEP_USER_ID,
  sweepRows,
  sweepTable,
  type SweepMeasurement,
} from "./sweep-table.ts";

// The pure parts of `pnpm --filter @latchkey/bench sweep-event-loop`: its command line, its table, and rows that
// the store itself counts as past their life (so the benchmark sweeps what it claims). No timing is asserted.

const NOW = Date.UTC(2026, 10, 1);

describe("sweep benchmark command line", () => {
  it("defaults to 100,000 rows of every kind on libSQL and PostgreSQL, batches of each store's own size", () => {
    expect(parseSweepArgs([])).toEqual({
      n: 100_000,
      stores: ["libsql", "postgres"],
      kinds: [...SWEEP_KINDS],
      batchSize: null,
      auditLog: false,
    });
  });

  it("takes --n, --store, --kind, --batch-size and --audit-log, and refuses anything else", () => {
    expect(
      parseSweepArgs(["--n=500", "--store=postgres", "--kind=sessions,counters", "--batch-size=250", "--audit-log=on"]),
    ).toEqual({ n: 500, stores: ["postgres"], kinds: ["sessions", "counters"], batchSize: 250, auditLog: true });
    for (const bad of [
      ["--store=mysql"],
      ["--kind=users"],
      ["--n=0"],
      ["--n=1.5"],
      ["--batch-size=10001"],
      ["--x=1"],
      ["n=5"],
    ])
      expect(() => parseSweepArgs(bad)).toThrow();
  });
});

describe("sweep benchmark table", () => {
  it("prints one markdown row per measurement, the worst delay being the larger witness", () => {
    const rows: SweepMeasurement[] = [
      {
        store: "libsql",
        kind: "idle",
        method: "1 s idle",
        removed: 0,
        wallMs: 1000.4,
        histogramMaxMs: 10.5,
        intervalLateMs: 3.25,
        ownCpuLateMs: 0.4,
      },
      {
        store: "postgres",
        kind: "apiKeys",
        method: "auth.api.sweep(), batches of 1,000",
        removed: 100_000,
        wallMs: 2345.6,
        histogramMaxMs: 12,
        intervalLateMs: 48.7,
        ownCpuLateMs: 20.2,
      },
    ];
    expect(sweepTable(rows).split("\n")).toEqual([
      "| store | rows swept | how | removed | wall ms | worst event-loop delay ms (histogram / 5 ms interval) | of it, own CPU ms |",
      "|---|---|---|---:|---:|---:|---:|",
      "| libSQL | nothing (the noise floor) | 1 s idle |  | 1000 | **11** (11 / 3.3) | 0.4 |",
      "| PostgreSQL | expired API keys | auth.api.sweep(), batches of 1,000 | 100,000 | 2346 | **49** (12 / 49) | 20 |",
    ]);
  });
});

describe("sweep benchmark rows", () => {
  it("seeds rows of every kind that the libSQL store's own sweep ports count as past their life", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-sweep-rows-"));
    const file = join(dir, "rows.db");
    await migrateDatabase(createClient({ url: `file:${file}` }));
    const writer = writerFor({ dialect: "sqlite", file });
    await writer.insert(schema.users, [
      {
        id: SWEEP_USER_ID,
        email: "sweep@example.com",
        emailVerified: true,
        metadata: {},
        appMetadata: {},
        createdAt: new Date(NOW),
        updatedAt: new Date(NOW),
        banned: false,
        banReason: null,
        banExpires: null,
      },
    ]);
    // Keys and rerolled keys share a table: different id ranges.
    for (const [kind, table, from] of [
      ["sessions", schema.sessions, 0],
      ["verifications", schema.verifications, 0],
      ["counters", schema.counters, 0],
      ["auditEvents", schema.auditEvents, 0],
      ["apiKeys", schema.apiKeys, 0],
      ["apiKeyRerolls", schema.apiKeys, 10],
    ] as const)
      await load(writer, table, 3, (a, b) => sweepRows(kind, from + a, from + b, NOW));
    await writer.close();
    const store = drizzleStore({ url: `file:${file}` });
    const now = new Date(NOW);
    try {
      expect(await store.sessions.deleteExpired(now)).toBe(3);
      expect(await store.verifications.deleteExpired(now)).toBe(3);
      expect(await store.counters.deleteExpired(NOW)).toBe(3);
      expect(await store.audit.deleteBefore(new Date(NOW - 90 * 86_400_000))).toBe(3);
      expect(await store.apiKeys.deleteExpired(now, null)).toHaveLength(3);
      expect(await store.apiKeys.deleteExpiredRerolls(now)).toBe(3);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
