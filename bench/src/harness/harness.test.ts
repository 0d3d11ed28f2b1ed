import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { apiKey } from "@better-auth/api-key";
import { getSchema } from "better-auth/db";
import { emailOTP, jwt } from "better-auth/plugins";
import { describe, expect, it } from "vitest";
import { getTableColumns, type Table } from "drizzle-orm";
import Database from "libsql";
import { betterAuthDatabase } from "../servers/better-auth-db.ts";
import { betterAuthSqliteSchema, type BetterAuthSchema } from "../servers/better-auth-sqlite.ts";
import type { Measurement } from "./load.ts";
import { BASELINE_BLOCK, GENERATED_END, GENERATED_START, replaceGenerated, unquotable } from "./docs.ts";
import { CONFIGURATION_S, estimateRun, SETTLE_S } from "./estimate.ts";
import { summarizeProfile } from "./profile.ts";
import {
  baselineColumns,
  cpuRatio,
  cpuRatioSpread,
  markdownDrivers,
  markdownScale,
  markdownTable,
  MIN_OPS,
  medianMeasurement,
  qualifies,
  ratio,
  ratioSpread,
  spread,
  totalCpuRatioSpread,
  type ScenarioResult,
} from "./report.ts";

// The harness's own logic; no timing is asserted anywhere (numbers come only from `pnpm bench`).

const measurement = (opsPerSec: number, cpuMsPerOp: number, dbCpuMsPerOp: number | null = null): Measurement => ({
  opsPerSec,
  cpuMsPerOp,
  dbCpuMsPerOp,
  p50Ms: 1,
  p99Ms: 2,
  errors: 0,
  ops: opsPerSec * 5,
  windowMs: 5000,
  rssPeakMb: 100,
  windowMonotonicUs: [0, 5_000_000],
});

const result = (
  latchkey: Measurement | null,
  betterAuth: Measurement | null,
  target: number | null,
): ScenarioResult => ({
  id: "token",
  title: "/token",
  store: "memory",
  unit: "req",
  latchkey,
  betterAuth,
  target,
  floorTarget: null,
  skipped: null,
});

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

describe("report", () => {
  it("computes the throughput ratio and the CPU-per-op ratio from the same window", () => {
    const r = result(measurement(1000, 0.5), measurement(100, 5), 5);
    expect(ratio(r)).toBe(10);
    expect(cpuRatio(r)).toBe(10);
  });

  it("takes the median and range of the recorded windows (the mean of the middle two for an even count)", () => {
    expect(spread([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5, n: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4, n: 4 });
    expect(spread([Number.NaN])).toBeNull();
  });

  it("computes each ratio per pair of windows, then reports the median and range of those ratios", () => {
    // Three repeats; Latchkey/Better Auth throughput 10x, 8x, 12x; Better Auth/Latchkey CPU per op 4x, 5x, 6x;
    // with the database's CPU added, (2+3)/(0.5+0.5)=5x, (2.5+3.5)/(0.5+1)=4x, (3+3)/(0.5+0.5)=6x.
    const windows = [
      { latchkey: measurement(1000, 0.5, 0.5), betterAuth: measurement(100, 2, 3) },
      { latchkey: measurement(800, 0.5, 1), betterAuth: measurement(100, 2.5, 3.5) },
      { latchkey: measurement(1200, 0.5, 0.5), betterAuth: measurement(100, 3, 3) },
    ];
    const r: ScenarioResult = {
      ...result(
        medianMeasurement(windows.map((w) => w.latchkey)),
        medianMeasurement(windows.map((w) => w.betterAuth)),
        5,
      ),
      windows,
    };
    expect(ratioSpread(r)).toEqual({ median: 10, min: 8, max: 12, n: 3, pairs: 3 });
    expect(ratio(r)).toBe(10);
    expect(cpuRatioSpread(r)).toEqual({ median: 5, min: 4, max: 6, n: 3, pairs: 3 });
    expect(totalCpuRatioSpread(r)).toEqual({ median: 5, min: 4, max: 6, n: 3, pairs: 3 });
    expect(r.latchkey?.opsPerSec).toBe(1000);
    expect(r.latchkey?.dbCpuMsPerOp).toBe(0.5);
    const table = markdownTable([{ ...r, work: "1 read vs 1 read + 2 writes" }], null);
    expect(table).toContain("| 1 read vs 1 read + 2 writes |");
    expect(table).toContain("| 1,000 (800–1,200) |");
    expect(table).toContain("| 10.0x (8.0x–12.0x) | 5.0x (4.0x–6.0x) | 5.0x (4.0x–6.0x) |");
    // app + database CPU per op of Latchkey: 1.0, 1.5, 1.0
    expect(table).toContain("| 1.00 (1.00–1.50) |");
    expect(table).toContain("CPU ms/op (app + db)");
  });

  it("leaves the app + db ratio blank ('-') for a store whose database CPU is not sampled, beside one that is", () => {
    // A libSQL row (database inside the server process: no db CPU) in the same table as a PostgreSQL row.
    const pgWindow = { latchkey: measurement(1000, 0.5, 0.5), betterAuth: measurement(100, 2, 3) };
    const liteWindow = { latchkey: measurement(1000, 0.5), betterAuth: measurement(100, 2) };
    const pg: ScenarioResult = { ...result(pgWindow.latchkey, pgWindow.betterAuth, 5), windows: [pgWindow] };
    const lite: ScenarioResult = {
      ...result(liteWindow.latchkey, liteWindow.betterAuth, 5),
      store: "libsql",
      windows: [liteWindow],
    };
    const rows = markdownTable([lite, pg], null).split("\n");
    const liteRow = rows.find((row) => row.includes("| libsql |")) ?? "";
    expect(liteRow).toContain("| 10.0x | 4.0x | - |");
    expect(liteRow).not.toContain("too few ops");
  });

  it("computes nothing from a window of fewer than MIN_OPS operations: the recorded 55.7x sign-in window", () => {
    // The PostgreSQL password sign-in row of the shortened run: Latchkey 51 sign-ins in a 3 s window, Better Auth one,
    // whose window CPU (1,290 ms) divided by that one sign-in gave 55.7x by throughput and 63.4x by CPU.
    const lk = { ...measurement(17, 21.1), ops: 51, windowMs: 3000 };
    const ba = { ...measurement(0.33, 1290), ops: 1, windowMs: 3000 };
    const r: ScenarioResult = { ...result(lk, ba, 5), windows: [{ latchkey: lk, betterAuth: ba }] };
    expect(MIN_OPS).toBe(20);
    expect(qualifies(lk)).toBe(true);
    expect(qualifies(ba)).toBe(false);
    expect(ratioSpread(r)).toBeNull();
    expect(ratio(r)).toBeNull();
    expect(cpuRatio(r)).toBeNull();
    const table = markdownTable([r], null);
    expect(table).toContain("| too few ops (1) | - | 0 | - |");
    expect(table).toContain("| too few ops | too few ops |");
    expect(table).not.toMatch(/MISSED|met/);
    // 19 operations are still too few, 20 are enough.
    expect(qualifies({ ...ba, ops: MIN_OPS - 1 })).toBe(false);
    expect(qualifies({ ...ba, ops: MIN_OPS })).toBe(true);
  });

  it("takes a ratio's median and range over the pairs where both windows qualify, and says how many", () => {
    // Five repeats; Better Auth completed 30, 1, 39, 0 and 51 operations. Qualifying pairs 1, 3 and 5: throughput
    // ratios 50/10 = 5x, 39/13 = 3x, 34/17 = 2x; CPU/op ratios 100/20 = 5x, 90/20 = 4.5x, 80/20 = 4x.
    const pairOf = (lkOps: number, lkRate: number, baOps: number, baRate: number, baCpu: number) => ({
      latchkey: { ...measurement(lkRate, 20), ops: lkOps },
      betterAuth: { ...measurement(baRate, baCpu), ops: baOps },
    });
    const windows = [
      pairOf(150, 50, 30, 10, 100),
      pairOf(150, 50, 1, 0.33, 3000),
      pairOf(117, 39, 39, 13, 90),
      pairOf(150, 50, 0, 0, Number.NaN),
      pairOf(102, 34, 51, 17, 80),
    ];
    const r: ScenarioResult = {
      ...result(
        medianMeasurement(windows.map((w) => w.latchkey)),
        medianMeasurement(windows.map((w) => w.betterAuth)),
        5,
      ),
      windows,
    };
    expect(ratioSpread(r)).toEqual({ median: 3, min: 2, max: 5, n: 3, pairs: 5 });
    expect(cpuRatioSpread(r)).toEqual({ median: 4.5, min: 4, max: 5, n: 3, pairs: 5 });
    expect(ratio(r)).toBe(3);
    // Better Auth's own medians come from its three windows of 30, 39 and 51 operations only.
    expect(r.betterAuth?.cpuMsPerOp).toBe(90);
    expect(r.betterAuth?.opsPerSec).toBe(13);
    expect(r.betterAuth?.qualifiedWindows).toBe(3);
    expect(r.betterAuth?.ops).toBe(121);
    const table = markdownTable([r], null);
    expect(table).toContain("| 3.0x (2.0x–5.0x), 3 of 5 pairs | 4.5x (4.0x–5.0x), 3 of 5 pairs |");
    expect(table).toContain("| 13 (10–17), 3 of 5 windows |");
    // Latchkey's five windows all qualify: no note on its side.
    expect(table).toContain("| 50 (34–50) |");
  });

  it("gives a side whose windows all fell short no figure at all", () => {
    const short = medianMeasurement([
      { ...measurement(3, 400), ops: 9 },
      { ...measurement(4, 300), ops: 12 },
    ]);
    expect(short?.qualifiedWindows).toBe(0);
    expect(short?.opsPerSec).toBeNaN();
    expect(short?.cpuMsPerOp).toBeNaN();
    expect(short?.ops).toBe(21);
    expect(qualifies(short)).toBe(false);
    const r: ScenarioResult = {
      ...result(measurement(1000, 1), short, 5),
      windows: [
        { latchkey: measurement(1000, 1), betterAuth: { ...measurement(3, 400), ops: 9 } },
        { latchkey: measurement(1000, 1), betterAuth: { ...measurement(4, 300), ops: 12 } },
      ],
    };
    expect(markdownTable([r], null)).toContain("| too few ops (9, 12) |");
  });

  it("takes the ratio per recorded pair, not of the two medians (a drifting machine moves both sides of a pair)", () => {
    // Pairs 1000/100, 400/100, 900/300: per-pair ratios 10x, 4x, 3x (median 4x); the medians' ratio would be 9x.
    const windows = [
      { latchkey: measurement(1000, 1), betterAuth: measurement(100, 4) },
      { latchkey: measurement(400, 1), betterAuth: measurement(100, 4) },
      { latchkey: measurement(900, 1), betterAuth: measurement(300, 4) },
    ];
    const r: ScenarioResult = {
      ...result(
        medianMeasurement(windows.map((w) => w.latchkey)),
        medianMeasurement(windows.map((w) => w.betterAuth)),
        null,
      ),
      windows,
    };
    expect(r.latchkey?.opsPerSec).toBe(900);
    expect(r.betterAuth?.opsPerSec).toBe(100);
    expect(ratioSpread(r)).toEqual({ median: 4, min: 3, max: 10, n: 3, pairs: 3 });
    expect(markdownTable([r], null)).toContain("| 4.0x (3.0x–10.0x) |");
  });

  it("leaves the database columns out where no window sampled the database (memory, libSQL)", () => {
    const table = markdownTable([result(measurement(1000, 0.5), measurement(100, 5), null)], null);
    expect(table).not.toContain("app + db");
    expect(totalCpuRatioSpread(result(measurement(1000, 0.5), measurement(100, 5), null))).toBeNull();
  });

  it("names each side's database driver per store", () => {
    const table = markdownDrivers([{ store: "libsql", latchkey: "native libsql", betterAuth: "Kysely over libsql" }]);
    expect(table).toContain("| libsql | native libsql | Kysely over libsql |");
  });

  it("says MISSED when a target is not reached, and met when it is", () => {
    expect(markdownTable([result(measurement(300, 1), measurement(100, 3), 5)], null)).toContain(">= 5x: MISSED");
    expect(markdownTable([result(measurement(600, 1), measurement(100, 6), 5)], null)).toContain(">= 5x: met");
  });

  it("keeps Better Auth's numbers when the Latchkey half was skipped, and says why", () => {
    const skipped = { ...result(null, measurement(100, 3), 5), skipped: "no jwt plugin" };
    const table = markdownTable([skipped], null);
    expect(table).toContain("Latchkey skipped: no jwt plugin");
    expect(table).toContain("| 100 |");
  });
});

describe("baseline table", () => {
  it("names this checkout and the baseline revision, with the ratios current/baseline and no target", () => {
    const table = markdownTable(
      [{ ...result(measurement(1100, 0.9), measurement(1000, 1), 5), work: "ignored here" }],
      null,
      baselineColumns("3dea209"),
    );
    const [head, rule, row] = table.split("\n");
    expect(head).toBe(
      "| scenario | store | current ops/s | p50 ms | err | CPU ms/op (app) | 3dea209 ops/s | p50 ms | err | CPU ms/op (app) | ratio current/3dea209 | CPU/op 3dea209/current (app) |",
    );
    expect(rule?.split("|").length).toBe(head?.split("|").length);
    expect(row).toContain("| 1.1x | 1.1x |");
    expect(row).not.toContain("ignored here");
    expect(row).not.toContain(">= 5x");
  });
});

describe("duration estimate", () => {
  it("adds up warm-up, window and settling of every window of both servers, and a start-up per configuration", () => {
    // One store, 5 repeats, 2 s + 5 s: a configuration of two plain scenarios and one doubled (sign-in):
    // 2 servers x 5 repeats x ((7 + 1) + (7 + 1) + (14 + 1)) = 310 s, plus one start-up.
    const estimate = estimateRun({
      stores: 1,
      repeat: 5,
      warmupMs: 2_000,
      measureMs: 5_000,
      configurations: [{ part: "standard scenarios", scales: [1, 1, 2] }],
      floor: false,
      hashCap: false,
      workers: false,
    });
    expect(SETTLE_S).toBe(1);
    expect(estimate.totalS).toBe(310 + CONFIGURATION_S);
    expect(estimate.parts).toEqual([{ part: "standard scenarios", seconds: 310 + CONFIGURATION_S, windows: 30 }]);
  });
});

describe("CPU profile summary", () => {
  it("counts only samples inside the measured window", () => {
    const dir = mkdtempSync(`${tmpdir()}/bench-profile-`);
    const profile = {
      startTime: 1_000,
      nodes: [
        { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 } },
        {
          id: 2,
          callFrame: {
            functionName: "startup",
            url: "file:///x/node_modules/.pnpm/tsx@1/node_modules/tsx/a.js",
            lineNumber: 0,
          },
        },
        {
          id: 3,
          callFrame: { functionName: "validate", url: "file:///w/packages/core/src/session/session.ts", lineNumber: 9 },
        },
      ],
      // startup at t=1100 and 1200 (before the window), validate at 2100 and 2200 (inside)
      samples: [2, 2, 3, 3],
      timeDeltas: [100, 100, 900, 100],
    };
    writeFileSync(`${dir}/a.cpuprofile`, JSON.stringify(profile));
    const summary = summarizeProfile(dir, 5, [2_000, 3_000]);
    expect(summary).toContain("validate");
    expect(summary).toContain("@latchkey/core");
    expect(summary).not.toContain("startup");
  });
});

describe("scale report", () => {
  const row = (lkSmall: Measurement, lkLarge: Measurement, baSmall: Measurement, baLarge: Measurement) =>
    markdownScale([
      {
        id: "token",
        title: "/token",
        store: "postgres",
        small: { users: 1000, latchkey: lkSmall, betterAuth: baSmall },
        large: { users: 1_000_000, latchkey: lkLarge, betterAuth: baLarge },
      },
    ]);

  it("says a hot path kept its throughput when it keeps at least 90% (by throughput and by CPU per operation)", () => {
    const table = row(measurement(1000, 1), measurement(950, 1.05), measurement(100, 10), measurement(90, 11));
    expect(table).toContain("| 95% |");
    expect(table).toContain("kept: met (CPU/op: met); ratio: holds");
    expect(table).toContain("@1,000 | @1,000,000");
  });

  it("says MISSED when the large seed costs more than 10%, and FELL when the ratio to Better Auth drops", () => {
    const table = row(measurement(1000, 1), measurement(500, 2), measurement(100, 10), measurement(100, 10));
    expect(table).toContain("kept: MISSED (CPU/op: missed); ratio: FELL");
    expect(table).toContain("(+100%)");
  });
});

describe("docs generator", () => {
  const run = { final: true, repeat: 5, quick: false, command: "pnpm bench --repeat=5 --store=libsql,postgres" };

  it("replaces only the generated block with the run's report", () => {
    const doc = `# Benchmarks\n\nprose\n\n${GENERATED_START}\nold figures\n${GENERATED_END}\n\nmore prose\n`;
    const out = replaceGenerated(doc, run, "| new | table |\n");
    expect(out).toContain("| new | table |");
    expect(out).not.toContain("old figures");
    expect(out.startsWith("# Benchmarks\n\nprose\n\n")).toBe(true);
    expect(out.endsWith(`${GENERATED_END}\n\nmore prose\n`)).toBe(true);
    expect(out).toContain("`pnpm bench --repeat=5 --store=libsql,postgres`");
    expect(() => replaceGenerated("# no markers", run, "x")).toThrow(/markers/);
  });

  it("writes a baseline run into its own block and leaves the main run's block as it was", () => {
    const doc = [
      "# Benchmarks",
      GENERATED_START,
      "main figures",
      GENERATED_END,
      "## Before and after",
      BASELINE_BLOCK.start,
      "old baseline figures",
      BASELINE_BLOCK.end,
      "",
    ].join("\n");
    const baselineRun = { ...run, command: "pnpm bench --baseline=3dea209 --repeat=5 --store=libsql,postgres" };
    const out = replaceGenerated(doc, baselineRun, "| current | 3dea209 |\n", BASELINE_BLOCK);
    expect(out).toContain(`${GENERATED_START}\nmain figures\n${GENERATED_END}`);
    expect(out).not.toContain("old baseline figures");
    expect(out).toContain("| current | 3dea209 |");
    expect(out).toContain("(bench/results/baseline.md, copied unchanged)");
    expect(() => replaceGenerated("# only the main block", baselineRun, "x", BASELINE_BLOCK)).toThrow(/baseline.md/);
  });

  it("refuses a run stopped part-way, a quick run and fewer than 5 windows", () => {
    expect(unquotable(run)).toBeNull();
    expect(unquotable({ ...run, final: false })).toMatch(/did not finish/);
    expect(unquotable({ ...run, quick: true })).toMatch(/smoke/);
    expect(unquotable({ ...run, repeat: 2 })).toMatch(/2 window/);
  });
});
