import { describe, expect, it } from "vitest";
import type { Measurement } from "./load.ts";
import { markdownScale } from "./report.ts";
import { measurement } from "./report-fixture.ts";

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
