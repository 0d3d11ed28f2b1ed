import type { UserConfig } from "tsdown";

/**
 * The one build every public package shares: ESM JavaScript, bundled `.d.ts`, source maps, into `dist/`.
 * Dependencies and peers stay external (tsdown's default); `#...` subpath imports stay external too, so the
 * package's own `imports` map picks the runtime file (node / deno / workerd / browser / default) at run time.
 */
export function libraryBuild(options: UserConfig & { entry: Record<string, string> }): UserConfig {
  return {
    format: "esm",
    platform: "neutral",
    target: "es2022",
    dts: { sourcemap: true },
    sourcemap: true,
    clean: true,
    outDir: "dist",
    treeshake: true,
    fixedExtension: false,
    hash: false,
    // Nothing from node_modules is bundled (onlyBundle: [] fails the build if something would be).
    deps: { neverBundle: [/^#/, /^node:/], onlyBundle: [] },
    ...options,
  };
}
