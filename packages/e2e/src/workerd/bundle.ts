import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { zodEnglishOnly } from "@latchkey/hono-adapter/esbuild";

/** The conditions wrangler resolves with: `#native-argon2` and `#scalar-script` pick their web files. */
export const WORKERD_CONDITIONS = ["workerd", "worker", "browser"];

/** Packages that must never reach a worker bundle: native addons, server drivers. */
const FORBIDDEN_PACKAGES = [
  "@node-rs/argon2",
  "postgres",
  "mongodb",
  "@libsql/client",
  "libsql",
  "@scalar/api-reference",
];

export interface WorkerBundle {
  code: string;
  bytes: number;
  gzipBytes: number;
  /** Every `node:` module the bundle still imports. The workers here run without `nodejs_compat`, so none may remain. */
  nodeImports: string[];
  /** Bundled files that belong to a forbidden package or to a Node-only variant. */
  forbiddenInputs: string[];
  /** Bytes in the output per package (or `(project)` for workspace sources), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
}

function packageOf(input: string): string {
  const at = input.lastIndexOf("node_modules/");
  if (at === -1) return "(project)";
  const rest = input.slice(at + "node_modules/".length).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

/** Problems that fail the budget check: leftover `node:` imports or forbidden inputs. */
export function bundleViolations(bundle: Pick<WorkerBundle, "nodeImports" | "forbiddenInputs">): string[] {
  return [
    ...bundle.nodeImports.map((m) => `imports ${m}, which workerd lacks without nodejs_compat`),
    ...bundle.forbiddenInputs.map((f) => `bundles ${f}`),
  ];
}

/**
 * Bundles a worker entry the way wrangler does (ESM, workerd conditions, `node:*` left external so leftovers
 * show up) and reports sizes, `node:` imports and forbidden inputs.
 *
 * @example
 * import { bundleWorker, bundleViolations } from "@latchkey/e2e/workerd";
 * const bundle = await bundleWorker("examples/cloudflare-workers/src/worker.ts", { minify: true });
 * if (bundleViolations(bundle).length) process.exit(1);
 */
export async function bundleWorker(entry: string, options: { minify?: boolean } = {}): Promise<WorkerBundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["browser", "module", "main"],
    conditions: WORKERD_CONDITIONS,
    target: "es2022",
    minify: options.minify ?? false,
    external: ["node:*"],
    plugins: [zodEnglishOnly()],
    logLevel: "silent",
  });
  const output = result.outputFiles[0]!;
  const code = output.text;
  const meta: Metafile = result.metafile;
  const out = Object.values(meta.outputs)[0]!;
  const nodeImports = [...new Set(out.imports.filter((i) => i.path.startsWith("node:")).map((i) => i.path))].sort();
  const forbiddenInputs = Object.keys(meta.inputs).filter(
    (input) => FORBIDDEN_PACKAGES.includes(packageOf(input)) || /\.node\.ts$/.test(input),
  );
  const sizes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out.inputs))
    sizes.set(packageOf(input), (sizes.get(packageOf(input)) ?? 0) + bytesInOutput);
  const byPackage = [...sizes].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
  return {
    code,
    bytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents).byteLength,
    nodeImports,
    forbiddenInputs,
    byPackage,
  };
}
