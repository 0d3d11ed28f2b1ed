// `pnpm check:packages`: packs every public package the way it would be published and checks each tarball:
// nothing but what runs (no tests, fixtures, benchmarks or config), `publint` clean, and `attw` (ESM-only profile)
// clean. Exit code 1 on any finding. Needs the packages built (`pnpm build`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packPublicPackages, root } from "./pack-packages.mjs";

const bin = (name) => join(root, "node_modules/.bin", name);

// What a tarball may not carry: tests, fixtures, benchmarks, TypeScript sources and tool configuration.
const FORBIDDEN = [
  /\.test\.[cm]?[jt]sx?$/,
  /(^|\/)(test|tests|__tests__|fixtures?|bench|src)\//,
  /(^|\/)(vitest|tsdown|tsconfig|drizzle)[^/]*\.(ts|json|mjs)$/,
  /\.py$/,
  /(^|\/)testing\//,
];

const problems = [];
const out = mkdtempSync(join(tmpdir(), "latchkey-pack-"));
try {
  for (const { name, tarball } of packPublicPackages(out)) {
    const manifest = { name };
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    for (const file of files)
      if (FORBIDDEN.some((re) => re.test(file))) problems.push(`${manifest.name}: the tarball carries ${file}`);
    for (const required of ["README.md", "LICENSE", "package.json"])
      if (!files.includes(required)) problems.push(`${manifest.name}: the tarball lacks ${required}`);
    if (!files.some((f) => f.startsWith("dist/") && f.endsWith(".d.ts")))
      problems.push(`${manifest.name}: the tarball has no dist/*.d.ts`);
    const packed = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
      for (const [name, range] of Object.entries(packed[field] ?? {})) {
        if (!/^[\^>]/.test(range)) problems.push(`${manifest.name}: ${field}.${name} is "${range}", not a caret range`);
      }
    }
    // Runtime-selected files: what a bundler picks by default (or for workerd/browser) must be Web-only.
    for (const [specifier, conditions] of Object.entries(packed.imports ?? {})) {
      for (const condition of ["default", "workerd", "worker", "browser"]) {
        const target = conditions[condition];
        if (target === undefined) continue;
        const code = execFileSync("tar", ["-xzOf", tarball, `package/${target.replace(/^\.\//, "")}`], {
          encoding: "utf8",
        });
        const native = code.match(/(?:from\s*|import\s*\(\s*)["'](node:[^"']+|@node-rs\/[^"']+)["']/);
        if (native) problems.push(`${manifest.name}: imports "${specifier}" under "${condition}" reaches ${native[1]}`);
      }
    }
    console.log(`${manifest.name}: ${files.length} files`);
    try {
      execFileSync(bin("publint"), ["run", tarball, "--strict"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      problems.push(`${manifest.name}: publint\n${error.stdout ?? ""}${error.stderr ?? error.message}`);
    }
    try {
      execFileSync(bin("attw"), [tarball, "--profile", "esm-only", "--format", "ascii"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      problems.push(`${manifest.name}: attw\n${error.stdout ?? ""}${error.stderr ?? error.message}`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (problems.length) {
  console.error(`\n${problems.length} problem(s):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log("every public package: publint and attw clean, nothing but what runs");
