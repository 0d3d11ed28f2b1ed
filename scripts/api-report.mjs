// `pnpm check:api`: the public API of every public package, one API Extractor report per package export
// (`packages/<pkg>/api/<export>.api.md`, checked in). In `pnpm test` it fails when a package's `.d.ts` surface
// differs from its committed report, so a change to the public API shows up in review as a diff of that file.
// `pnpm check:api --update` rewrites the reports after an intended change. Needs the packages built (`pnpm build`).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { publicPackages, root } from "./pack-packages.mjs";

const update = process.argv.includes("--update");

/** `{ subpath, types }` for each export of a manifest that declares types (not `./package.json`). */
function typedExports(manifest) {
  return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const types = typeof target === "object" && target !== null ? target.types : null;
    return typeof types === "string" ? [{ subpath, types }] : [];
  });
}

/** "." -> "index", "./postgres-js" -> "postgres-js". */
const reportName = (subpath) => (subpath === "." ? "index" : subpath.replace(/^\.\//, "").replaceAll("/", "-"));

const temp = mkdtempSync(join(tmpdir(), "latchkey-api-"));
const changed = [];
const failed = [];
try {
  for (const { dir, manifest } of publicPackages()) {
    for (const { subpath, types } of typedExports(manifest)) {
      const name = reportName(subpath);
      if (update) mkdirSync(join(dir, "api"), { recursive: true });
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: dir,
          mainEntryPointFilePath: join(dir, types),
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                lib: ["ES2023", "DOM"],
                types: ["node"],
                typeRoots: [join(root, "node_modules/@types")],
                skipLibCheck: true,
              },
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: `${name}.api.md`,
            reportFolder: join(dir, "api"),
            reportTempFolder: temp,
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            // The report records the surface; doc-comment style and the like are not what it gates.
            compilerMessageReporting: { default: { logLevel: "warning" } },
            extractorMessageReporting: { default: { logLevel: "none" } },
            tsdocMessageReporting: { default: { logLevel: "none" } },
          },
        },
        configObjectFullPath: undefined,
        packageJsonFullPath: join(dir, "package.json"),
      });
      const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
      if (!result.succeeded && !result.apiReportChanged) failed.push(`${manifest.name} (${subpath})`);
      if (result.apiReportChanged) changed.push(`${manifest.name}${subpath === "." ? "" : subpath.slice(1)}`);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

if (failed.length > 0) {
  console.error(`API Extractor could not analyse: ${failed.join(", ")}.`);
  process.exit(1);
}
if (changed.length > 0 && !update) {
  console.error(
    `The public API changed: ${changed.join(", ")}. If intended, run \`pnpm check:api --update\` and commit packages/*/api/.`,
  );
  process.exit(1);
}
console.log(update ? `API reports written (${changed.length} changed).` : "API reports match the packages.");
