// Packs every public package (packages/* that are not private) the way `pnpm publish` would: `workspace:^` ranges
// become carets, only the manifest's "files" go in. Used by `pnpm check:packages` and the consumer tests.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** The public packages: `{ dir, manifest }` for every packages/* manifest that is not private. */
export function publicPackages() {
  return readdirSync(join(root, "packages"))
    .map((dir) => ({
      dir: join(root, "packages", dir),
      manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")),
    }))
    .filter(({ manifest }) => !manifest.private);
}

/** Packs each public package into `outDir`; resolves to `{ name, tarball }` per package. Needs `pnpm build` first. */
export function packPublicPackages(outDir) {
  return publicPackages().map(({ dir, manifest }) => {
    const before = new Set(readdirSync(outDir));
    execFileSync("npx", ["-y", "--package=pnpm@12.21.0", "pnpm", "pack", "--pack-destination", outDir], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const file = readdirSync(outDir).find((f) => !before.has(f));
    if (!file) throw new Error(`pnpm pack wrote no tarball for ${manifest.name}`);
    return { name: manifest.name, tarball: join(outDir, file) };
  });
}
