import type { KnipConfig } from "knip";

// Unused files, dependencies and exports across the workspace (`pnpm knip`, part of `pnpm test`).
// Entry points are what runs: each package's tsdown entries (its `exports`, `bin` and runtime-selected `#imports`
// files, read from tsdown.config.ts), every test file and Vitest config (the Vitest plugin), and the files the
// tests, the benchmarks and the examples start as processes, listed below. The exports of an entry file are its
// public API and are never reported (`includeEntryExports: false`); everything else must be imported somewhere.
const library = { tsdown: { config: ["tsdown.config.ts"] }, project: ["src/**", "*.ts"] };

const config: KnipConfig = {
  includeEntryExports: false,
  // `taskset` (util-linux) pins the benchmark's servers and load generator to CPUs; `redis-cli` (Debian's, beside
  // redis-server) lists the reliability suite's Redis keys; `apt-get` (Debian) installs the tools the tests start
  // (scripts/test-prerequisites.mjs); `dot` (Graphviz) draws docs/core-layers.svg; `oathtool` (oath-toolkit) is the
  // independent TOTP implementation the two-factor tests check against. None is an npm package.
  ignoreBinaries: ["taskset", "redis-cli", "apt-get", "dot", "oathtool"],
  workspaces: {
    ".": {
      // A script a test imports declares its types beside it (`options-docs.d.mts`); TypeScript reads it, not knip.
      entry: ["scripts/*.mjs", "scripts/*.d.mts"],
      project: ["scripts/**", "test/*.ts", "*.ts"],
      // Run as binaries from node_modules/.bin: attw by scripts/check-packages.mjs, redocly and spectral by
      // the hono-adapter's OpenAPI lint test.
      // @latchkey/cli is there for `npx latchkey` at the repository root.
      ignoreDependencies: ["@arethetypeswrong/cli", "@redocly/cli", "@stoplight/spectral-cli", "@latchkey/cli"],
    },
    "packages/*": library,
    "packages/core": {
      ...library,
      // core's service tests run over the memory store's sources through a Vitest alias: a package dependency
      // would close a cycle (memory-store depends on core) in the package graph.
      ignoreDependencies: ["@latchkey/memory-store"],
    },
    // The HTTP suites' helpers live in test/, outside the published src/.
    "packages/hono-adapter": { ...library, project: ["src/**", "test/**", "*.ts"] },
    "packages/client": {
      ...library,
      entry: ["type-tests/*.{ts,tsx}"],
      project: ["src/**", "scripts/**", "test/**", "type-tests/**", "*.ts"],
    },
    "packages/drizzle-store": {
      ...library,
      // bench/: run by hand; drizzle.*.config.ts: drizzle-kit's (`pnpm generate`); the D1 conformance worker is
      // bundled and run in workerd by d1.test.ts.
      entry: ["bench/*.ts", "drizzle.*.config.ts", "test/d1-workerd/conformance-worker.ts"],
      project: ["src/**", "test/**", "bench/**", "*.ts"],
    },
    // The runners are started as processes by runtimes.test.ts and the e2e:* scripts (Bun, Deno, workerd).
    "packages/e2e": { entry: ["src/runners/*.ts"], project: ["src/**", "*.ts"] },
    "packages/test-support": { project: ["src/**"] },
    // The configs `latchkey serve` loads in the tests (by path, as a user's config would be).
    "packages/cli": { ...library, entry: ["src/serve/fixtures/*"] },
    "packages/reliability": { entry: ["src/serve.config.mjs"] },
    // The configs `latchkey serve` loads by path (the test's wraps the example's); the Python side is not JavaScript.
    "examples/fastapi": { entry: ["latchkey.config.ts", "test/latchkey.test.config.ts"] },
    "examples/deno": { entry: ["src/server.ts"] },
    "examples/cloudflare-workers": { entry: ["src/worker.ts"] },
    // The servers under test are started as processes by the harness; the micro benchmarks and the bundle report
    // are run by their scripts.
    bench: { entry: ["src/servers/*.ts", "src/hash-cap/server.ts", "src/micro/*.ts", "bundle/*.ts"] },
    // fixtures/ is copied into fresh npm projects outside the workspace (their dependencies are theirs, not this
    // package's), except journey.mjs, which the test also imports.
    "test/consumers": { project: ["*.ts", "harness/**", "fixtures/plain/journey.mjs"] },
  },
};

export default config;
