// `pnpm check:layers` (in `pnpm test`): core's folders, production code only, form no cycle. With the upward-import
// rules of .dependency-cruiser.cjs this keeps the drawing of core's imports (`pnpm docs:architecture`) free of
// circles and of arrows back up. Tests are left out: a test beside the code it covers may build the whole auth
// (sweep.test.ts drives the sweep through createAuthCore), and dependency-cruiser's folder scope cannot exempt files.
const base = require("./.dependency-cruiser.cjs");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-cycle-in-core",
      comment:
        "A folder of core that needs another which needs it back: the two can be neither read nor layered apart.",
      severity: "error",
      scope: "folder",
      from: { path: "^packages/core/src/" },
      to: { path: "^packages/core/src/", circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: [base.options.exclude.path, "\\.test\\.tsx?$"] },
  },
};
