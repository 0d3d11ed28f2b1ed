import { describe, expect, it } from "vitest";
import {
  baselineColumns,
  cpuRatio,
  cpuRatioSpread,
  markdownDrivers,
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
import { measurement, result } from "./report-fixture.ts";

// The harness's own logic; no timing is asserted anywhere (numbers come only from `pnpm bench`).

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
