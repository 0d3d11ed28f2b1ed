// Global setup of the consumers project, done once per run for all its files: every public package packed, and
// the two projects the files share installed from the tarballs with plain npm, outside the workspace: `tools` (the
// runtimes from npm: Node 22 and 24, Bun, Deno) and `plain` (the consumer project with its fixtures). The files
// find them with inject("consumersWork") (consumers-fixture.ts). LATCHKEY_KEEP_CONSUMERS=1 keeps them after the run.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { packPublicPackages } from "../../scripts/pack-packages.mjs";
import { copyInto, HOST_APP, npmProject, type Packs } from "./harness/projects.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder with the tarballs' projects: `plain`, `tools`, and a folder per suite that makes its own. */
    consumersWork: string;
    /** Package name to packed tarball. */
    consumersPacks: Packs;
    /** Why packing or installing failed, or null. */
    consumersError: string | null;
  }
}

/**
 * Packs and installs into `work`. A failure is not thrown here (it would stop every other project of the run): it
 * is handed to the consumers files, which then fail with it (consumers-fixture.ts).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), "latchkey-consumers-"));
  project.provide("consumersWork", work);
  try {
    project.provide("consumersPacks", await packAndInstall(work));
    project.provide("consumersError", null);
  } catch (error) {
    project.provide("consumersPacks", {});
    project.provide("consumersError", `could not pack and install the consumers' projects: ${String(error)}`);
  }
  // LATCHKEY_KEEP_CONSUMERS=1 keeps the projects for a look after a failure.
  return () => {
    if (!process.env.LATCHKEY_KEEP_CONSUMERS) rmSync(work, { recursive: true, force: true });
  };
}

async function packAndInstall(work: string): Promise<Packs> {
  const fixtures = fileURLToPath(new URL("./fixtures/plain", import.meta.url));
  const plain = join(work, "plain");
  const tools = join(work, "tools");
  mkdirSync(join(work, "packs"));
  const packs: Packs = Object.fromEntries(
    packPublicPackages(join(work, "packs")).map((p: { name: string; tarball: string }) => [p.name, p.tarball]),
  );
  mkdirSync(plain, { recursive: true });
  copyInto(fixtures, plain, [
    "app.mjs",
    "client-run.mjs",
    "consumer-client.ts",
    "journey.mjs",
    "run-node.mjs",
    "run-express.mjs",
    "run-fastify.mjs",
    "run-node-postgres-redis.mjs",
    "run-bun.mjs",
    "run-deno.mjs",
    "consumer.ts",
    "consumer-libs.ts",
    "tsconfig.bundler.json",
    "tsconfig.nodenext.json",
    "tsconfig.bundler-libs.json",
    "tsconfig.nodenext-libs.json",
  ]);
  await Promise.all([
    // Node 22 and 24 as npm ships them (the `node` package; Node 20 is the one running this test), Bun and Deno.
    npmProject(tools, packs, [], { node22: "npm:node@^22", node24: "npm:node@^24", bun: "^1.4.5", deno: "^2.9.6" }),
    npmProject(
      plain,
      packs,
      [...HOST_APP, "@latchkey/drizzle-store", "@latchkey/cli", "@latchkey/client", "@latchkey/redis-store"],
      {
        hono: "^4.13.19",
        "@hono/node-server": "^2.1.8",
        express: "^5.2.0",
        fastify: "^5.12.8",
        jose: "^6.2.17",
        "@libsql/client": "^0.18.0",
        pg: "^8.23.1",
        redis: "^6.3.1",
        typescript: "5.9.3",
      },
    ),
  ]);
  return packs;
}
