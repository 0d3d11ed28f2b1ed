import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// The child runtimes (Bun, Deno, workerd) start in seconds but run the whole suite plus argon2id at production cost.
export default defineProject({ test: { name: "e2e", testTimeout: 120_000 }, resolve: { alias: workspaceSources() } });
