import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// `pnpm --filter @latchkey/bench organization-reads` still runs both libraries end to end (sign-up, an organization
// made active, `has-permission` and the session read checked for their answers): one tiny round, so a change to
// either side's routes or answers shows here rather than on the next benchmark day. No timing is asserted.
describe("organization reads benchmark", () => {
  it("checks a permission and reads the active organization on Latchkey and on Better Auth, and prints the ratios", async () => {
    const script = fileURLToPath(new URL("./organization-reads.ts", import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", script, "--rounds=1", "--per-round=3"],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)), timeout: 120_000 },
    );
    expect(stdout).toMatch(/\| hasPermission \| Latchkey \| \d+ µs \|/);
    expect(stdout).toMatch(/\| active-organization session read \| Better Auth \| \d+ µs \|/);
    expect(stdout).toMatch(/hasPermission: ratio Better Auth \/ Latchkey: \d+\.\d\d/);
  }, 150_000);
});
