import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { summarizeProfile } from "./profile.ts";

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
