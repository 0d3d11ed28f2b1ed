import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({
  // Whole journeys (several argon2id hashes on a real database) can pass 5 s on a loaded 2-core machine.
  // `isolate: false`: the files of a project share one module graph per worker instead of importing core, Hono and
  // Zod afresh for each of ~130 files (import time was most of this project's CI time). Every file builds its own
  // auth and store, and restores any global it touches.
  test: { name: "hono-adapter", testTimeout: 30_000, isolate: false },
  // The workspace packages and the `#imports` files from their sources (the Node variants).
  resolve: { alias: workspaceSources() },
});
