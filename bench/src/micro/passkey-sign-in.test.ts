import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// `pnpm --filter @latchkey/bench passkey-sign-in` still runs both libraries end to end (sign-up, registration,
// sign-in with the software authenticator): one tiny round, so a change to either side's routes or answers shows here
// rather than on the next benchmark day. No timing is asserted.
describe("passkey sign-in benchmark", () => {
  it("signs in with a passkey on Latchkey and on Better Auth and prints the ratio", async () => {
    const script = fileURLToPath(new URL("./passkey-sign-in.ts", import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", script, "--rounds=1", "--per-round=3"],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)), timeout: 120_000 },
    );
    expect(stdout).toMatch(/\| Latchkey \| \d+ µs \|/);
    expect(stdout).toMatch(/\| Better Auth \| \d+ µs \|/);
    expect(stdout).toMatch(/ratio Better Auth \/ Latchkey: \d+\.\d\d/);
  }, 150_000);
});
