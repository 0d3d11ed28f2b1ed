// The architecture, checked on every `pnpm test` (`pnpm check:architecture`; `pnpm check:layers` adds the folder
// cycles, .dependency-cruiser-layers.cjs). Layers of core, bottom up
// (docs/architecture.md draws them); each folder imports only its own layer and the ones below:
//   1. foundation: errors, logger, config, ports, crypto, password, sweep, kernel (events, emit, request meta,
//      validation, `ResolvedConfig`). Imports nothing else in core.
//   2. services: session, rate-limit, one-time, email, device, hooks, cache (the shared services `AuthContext` holds).
//   3. context: `AuthContext`, `inTransaction` and the plugin contract (they name the services).
//   4. shared steps: identity (account steps several features share).
//   5. features: every other folder, one feature each; they use each other only through an `index.ts`.
//   6. the composition root: auth/, which alone names every feature (and index.ts / internal.ts above it).
const CORE = "^packages/core/src/";
const FOUNDATION = `${CORE}(errors|logger|config|ports|crypto|password|sweep|kernel)/`;
const SERVICES = `${CORE}(session|rate-limit|one-time|email|device|hooks|cache)/`;
const CONTEXT = `${CORE}context/`;
const SHARED = `${CORE}identity/`;
const ROOT = `${CORE}auth/`;
// A feature: any folder of core in none of the layers above (so a new folder is a feature until placed lower).
const FEATURES = `${CORE}(?!(errors|logger|config|ports|crypto|password|sweep|kernel|session|rate-limit|one-time|email|device|hooks|cache|context|identity|auth)/)[^/]+/`;
// The private packages (test harnesses, never published).
const PRIVATE = "(e2e|reliability|test-support)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // A cycle means neither module can be read (or tested) without the other.
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    // The foundation is what everything stands on; it knows nothing above it. (Tests may: a test beside the code it
    // covers may build the whole auth to drive it.)
    {
      name: "foundation-imports-nothing-above",
      severity: "error",
      from: { path: FOUNDATION, pathNot: "\\.test\\.ts$" },
      to: { path: CORE, pathNot: FOUNDATION },
    },
    // The shared services stand on the foundation only: no context, no shared step, no feature, no root.
    {
      name: "services-import-only-the-foundation",
      severity: "error",
      from: { path: SERVICES, pathNot: "\\.test\\.ts$" },
      to: { path: [CONTEXT, SHARED, FEATURES, ROOT] },
    },
    // The context names the services; it imports no shared step, feature or root.
    {
      name: "context-imports-no-feature",
      severity: "error",
      from: { path: CONTEXT, pathNot: "\\.test\\.ts$" },
      to: { path: [SHARED, FEATURES, ROOT] },
    },
    // The shared account steps are below every feature.
    {
      name: "shared-steps-import-no-feature",
      severity: "error",
      from: { path: SHARED, pathNot: "\\.test\\.ts$" },
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
      // One exception: sign-in-deletion-race.test.ts plants a key row whose owner is gone straight into the memory
      // store's tables (no port can write one any more), to show the store's owner check on read refuses it.
      from: {
        path: "^(packages|examples)/([^/]+)/",
        pathNot: "^packages/hono-adapter/src/routes/email-password/sign-in-deletion-race\\.test\\.ts$",
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
