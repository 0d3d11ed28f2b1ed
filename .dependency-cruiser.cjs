// The architecture, checked on every `pnpm test` (`depcruise` in the root `test` script). Layers of core, bottom up
// (docs/architecture.md draws them): foundation (errors, ports, crypto, logger, password, config, sweep) < kernel (the
// contracts in kernel/ and the shared services every feature is built on) < features (one folder each) < the
// composition root (auth/, which alone names every feature) < index.ts.
const CORE = "^packages/core/src/";
const FOUNDATION = `${CORE}(errors|ports|crypto|logger|password|config|sweep)/`;
const KERNEL = `${CORE}(kernel|session|rate-limit|email|one-time|hooks|identity)/`;
const FEATURES = `${CORE}(email-password|email-verification|account|email-otp|api-key|jwt|audit-log|oauth)/`;
const ROOT = `${CORE}auth/`;
// The private packages (test harnesses, never published).
const PRIVATE = "(e2e|reliability|test-support)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // A cycle means neither module can be read (or tested) without the other.
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    // The foundation is what everything stands on; it knows nothing above it.
    {
      name: "foundation-is-a-leaf",
      severity: "error",
      from: { path: FOUNDATION, pathNot: "\\.test\\.ts$" },
      to: { path: [KERNEL, FEATURES, ROOT] },
    },
    // The kernel (context, request meta, transaction, plugin contract, events, shared services) imports no feature.
    {
      name: "kernel-imports-no-feature",
      severity: "error",
      from: { path: KERNEL, pathNot: "\\.test\\.ts$" },
      to: { path: [FEATURES, ROOT] },
    },
    // Only the composition root (and the package index) names the features together; a feature never reaches up.
    {
      name: "features-never-import-the-root",
      severity: "error",
      from: { path: FEATURES, pathNot: "\\.test\\.ts$" },
      to: { path: ROOT },
    },
    // The root, and any feature, uses a feature only through its public face (index.ts), so its internals stay free to change.
    {
      name: "features-use-each-others-index",
      severity: "error",
      from: { path: `${CORE}([^/]+)/`, pathNot: "\\.test\\.ts$" },
      to: { path: FEATURES, pathNot: ["/index\\.ts$", `${CORE}$1/`] },
    },
    // What a published package's src/ runs must not need its devDependencies (test helpers live in test/).
    {
      name: "src-uses-no-dev-dependency",
      severity: "error",
      from: {
        path: `^packages/(?!${PRIVATE})[^/]+/src/`,
        pathNot: "\\.test\\.tsx?$",
      },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm", "npm-peer", "npm-optional"] },
    },
    // Nor the private test harness package.
    {
      name: "src-uses-no-test-support",
      severity: "error",
      from: { path: `^packages/(?!${PRIVATE})[^/]+/src/`, pathNot: "\\.test\\.tsx?$" },
      to: { path: "^packages/test-support/" },
    },
    // A package reaches another only by its name (its package exports), never by a relative path into its files.
    {
      name: "no-reaching-into-another-package",
      severity: "error",
      // One exception: reset-races.test.ts plants a key row whose owner is gone straight into the memory store's
      // tables (no port can write one any more), to show the store's owner check on read refuses it.
      from: {
        path: "^(packages|examples)/([^/]+)/",
        pathNot: "^packages/hono-adapter/src/routes/email-password/reset-races\\.test\\.ts$",
      },
      to: { dependencyTypes: ["local"], path: "^(packages|examples)/", pathNot: "^$1/$2/" },
    },
  ],
  options: {
    // Type-only imports count: a cycle through a type is still a cycle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    doNotFollow: { path: "(^|/)(node_modules|dist)/" },
    exclude: { path: "(^|/)(\\.next|\\.wrangler|generated)/" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "types", "default"] },
  },
};
