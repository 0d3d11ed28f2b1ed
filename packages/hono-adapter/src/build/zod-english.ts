import { dirname, join } from "node:path";
import type { Plugin } from "esbuild";

/**
 * An esbuild plugin that keeps only zod's English messages. `zod` exports every locale through its `z.locales`
 * namespace, and libraries that extend `z` (such as @hono/zod-openapi) keep the whole namespace alive, so about
 * 258 KiB of translations (about 38 KiB gzip) reach every worker bundle. Latchkey's messages are English; so are
 * zod's by default. For custom esbuild builds (wrangler's `[build] command`, your own scripts). The side-by-side
 * benchmark applies it to Better Auth's bundle too, so the comparison stays fair.
 *
 * @example
 * import { zodEnglishOnly } from "@latchkey/hono-adapter/esbuild";
 * await build({ entryPoints: ["worker.ts"], bundle: true, plugins: [zodEnglishOnly()] });
 */
export function zodEnglishOnly(): Plugin {
  return {
    name: "zod-english-only",
    setup(b) {
      b.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) => {
        if (!/[\\/]zod[\\/]/.test(args.importer)) return undefined;
        return { path: join(dirname(args.importer), args.path), namespace: "zod-english-only" };
      });
      b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
        loader: "js",
        resolveDir: dirname(args.path),
      }));
    },
  };
}
