import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Node, Bun and Deno read the explorer bundle from the installed @scalar/api-reference package: no CDN.
let cached: Promise<string | null> | null = null;

export function loadScalarScript(): Promise<string | null> {
  cached ??= (async () => {
    try {
      const require = createRequire(import.meta.url);
      // The package exports no ./package.json; its entry sits in dist/, beside dist/browser/.
      const entry = require.resolve("@scalar/api-reference");
      return await readFile(join(dirname(entry), "browser/standalone.js"), "utf8");
    } catch {
      return null;
    }
  })();
  return cached;
}
