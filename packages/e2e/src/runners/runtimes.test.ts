// Drives the Bun, Deno and workerd runners as child processes (binaries from npm), so `pnpm test` covers all
// four runtimes, and carries argon2id hashes from runtime to runtime through a file.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { portableArgon2idRaw } from "@latchkey/core/internal";
import { createE2eAuth } from "../app.ts";
import { EXCHANGE_PASSWORD, exchangeHashes, type HashEntry } from "../argon2-exchange.ts";
import { planSuite } from "../harness/runner.ts";
import { JOURNEYS } from "../journeys/index.ts";
import { readableOutput, runChild } from "./spawn.ts";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(PACKAGE_DIR, "node_modules", ".bin", name);
const DENO_RUN = ["run", "--no-lock", "--no-prompt", "--allow-read"];

// Every runtime must run exactly the journeys Node runs: none may silently skip a feature.
const expectedJourneys = (await planSuite(createE2eAuth().target, JOURNEYS))
  .filter((c) => c.skipReason === null)
  .map((c) => c.name);

let dir = "";
/** Hashes Node wrote in `beforeAll`, one per engine: the only hashes a runtime's test is handed. */
const fromNode: HashEntry[] = [];

/**
 * Runs one runtime on its own: it verifies Node's native and portable hashes, and Node verifies the hash it wrote
 * with both engines, in the same test. No test reads another's results, so any of them runs alone.
 */
async function runRuntime(runtime: string, command: string, args: string[], engine: "native" | "portable") {
  const hashes = join(dir, `hashes-for-${runtime}.json`);
  await writeFile(hashes, JSON.stringify(fromNode));
  const run = await runChild(command, [...args, "--hashes", hashes], PACKAGE_DIR);
  const output = readableOutput(run);
  expect(run.report, `no report from ${runtime}:\n${output}`).not.toBeNull();
  const report = run.report!;
  expect(report.result.failed, output).toEqual([]);
  expect(report.result.passed, output).toEqual(expectedJourneys);
  expect(report.argon2?.engine, output).toBe(engine);
  expect(report.argon2?.verified, output).toEqual(
    fromNode.map((e) => ({ from: e.runtime, engine: e.engine, ok: true })),
  );
  expect(run.code, output).toBe(0);
  await expectNodeVerifies(report.argon2!.own);
  expect(report.argon2!.own.engine).toBe(engine);
  return { run, output };
}

/** Node checks a hash with its native and its portable engine (and refuses a wrong password). */
async function expectNodeVerifies(entry: HashEntry): Promise<void> {
  const native = argon2idHasher({ random: webCryptoRandom });
  const portable = argon2idHasher({ random: webCryptoRandom, engine: portableArgon2idRaw });
  expect(entry.phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  expect(await native.verify(entry.phc, EXCHANGE_PASSWORD), entry.runtime).toBe(true);
  expect(await portable.verify(entry.phc, EXCHANGE_PASSWORD), entry.runtime).toBe(true);
  expect(await native.verify(entry.phc, "wrong password"), entry.runtime).toBe(false);
}

describe("the same suite on Bun, Deno and workerd", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "latchkey-e2e-"));
    const node = await exchangeHashes("node", []);
    expect(node.engine).toBe("native");
    const portable = argon2idHasher({ random: webCryptoRandom, engine: portableArgon2idRaw });
    fromNode.push(node.own, { runtime: "node", engine: "portable", phc: await portable.hash(EXCHANGE_PASSWORD) });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("Bun (bun from npm): every journey passes, native argon2id; Bun and Node verify each other's hashes", async () => {
    await runRuntime("bun", bin("bun"), ["run", "src/runners/bun.ts"], "native");
  });

  it("Deno (deno from npm): every journey passes, portable argon2id without --allow-ffi; Deno and Node verify each other's hashes", async () => {
    await runRuntime("deno", bin("deno"), [...DENO_RUN, "src/runners/deno.ts"], "portable");
  });

  it("Deno with --allow-ffi --allow-env loads the native argon2id engine and still verifies both engines' hashes", async () => {
    await runRuntime(
      "deno-ffi",
      bin("deno"),
      [...DENO_RUN, "--allow-ffi", "--allow-env", "src/runners/deno.ts"],
      "native",
    );
  });

  it("workerd (Miniflare): smoke GET /auth/get-session, the suite in the isolate and over HTTP, portable argon2id", async () => {
    const { output } = await runRuntime(
      "workerd",
      process.execPath,
      ["--import", "tsx", "src/runners/workerd.ts"],
      "portable",
    );
    expect(output).toMatch(/^ok - smoke: /m);
    expect(output).toMatch(/^# over HTTP: \d+ passed, 0 failed/m);
  });
});
