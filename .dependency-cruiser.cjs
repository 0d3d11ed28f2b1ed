// The architecture, checked on every `pnpm test` (`depcruise` in the root `test` script). Layers of core, bottom up
// (docs/architecture.md draws them): foundation (errors, ports, crypto, logger, password, config) < kernel (the
// contracts in kernel/ and the shared services every feature is built on) < features (one folder each) < the
// composition root (auth/, which alone names every feature) < index.ts.
const CORE = "^packages/core/src/";
const FOUNDATION = `${CORE}(errors|ports|crypto|logger|password|config)/`;
const KERNEL = `${CORE}(kernel|session|rate-limit|email|one-time|hooks|identity)/`;
const FEATURES = `${CORE}(email-password|email-verification|account|email-otp|api-key|jwt|audit-log)/`;
const ROOT = `${CORE}auth/`;

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
    // A package reaches another only by its name (its package exports), never by a relative path into its files.
    {
      name: "no-reaching-into-another-package",
      severity: "error",
      from: { path: "^(packages|examples)/([^/]+)/" },
      to: { dependencyTypes: ["local"], path: "^(packages|examples)/", pathNot: "^$1/$2/" },
    },
  ],
  options: {
    // Type-only imports count: a cycle through a type is still a cycle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.next|\\.wrangler|generated)/" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "types", "default"] },
  },
};
