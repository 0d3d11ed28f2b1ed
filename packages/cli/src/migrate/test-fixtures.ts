import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// For the migrate tests (migrate*.test.ts): `latchkey` run as a process, from the built bin.

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const run = promisify(execFile);

export async function latchkey(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return latchkeyWith({}, ...args);
}

export async function latchkeyWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each run of the bin starts Node (up to a second on a loaded two-core machine).
export const SUBPROCESS_TIMEOUT = { timeout: 30_000 };
