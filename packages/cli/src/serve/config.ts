import { existsSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { CreateAuthOptions } from "@latchkey/hono-adapter";

/** The names `latchkey serve` looks for in the working directory, in this order, when `--config` is not given. */
const CONFIG_FILES = ["latchkey.config.ts", "latchkey.config.mts", "latchkey.config.mjs", "latchkey.config.js"];

const TYPESCRIPT = new Set([".ts", ".mts", ".cts"]);

/** A config that could not be found, loaded or understood: the message says which file and why. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Finds the config file: `--config` when given (it must exist), else the first of `CONFIG_FILES` in `cwd`. */
export function resolveConfigPath(given: string | null, cwd: string): string {
  if (given !== null) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new ConfigError(`config file ${path} does not exist`);
    return path;
  }
  for (const name of CONFIG_FILES) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  throw new ConfigError(
    `no ${CONFIG_FILES.join(", ")} in ${cwd}: pass --config <file>, or run \`latchkey init\` to write one`,
  );
}

/**
 * Imports the module. `.js`/`.mjs` go through Node's own `import()`; `.ts`/`.mts`/`.cts` through jiti (Node 20
 * cannot strip types, and a loader flag would be one more thing to get right in a Dockerfile). jiti is loaded only
 * for TypeScript configs and writes no cache files next to the project.
 */
async function importModule(path: string): Promise<unknown> {
  if (TYPESCRIPT.has(extname(path))) {
    const { createJiti } = await import("jiti");
    const jiti = createJiti(pathToFileURL(path).href, { fsCache: false, moduleCache: false });
    return jiti.import(path);
  }
  return import(pathToFileURL(path).href);
}

/**
 * Loads a config module: its default export is the `createAuth` options, or a function of the environment (sync or
 * async) returning them. Validation of the options themselves is `createAuth`'s job.
 */
export async function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<CreateAuthOptions> {
  let module: unknown;
  try {
    module = await importModule(path);
  } catch (error) {
    throw new ConfigError(`could not load ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const exported = (module as { default?: unknown } | null)?.default;
  let options: unknown;
  try {
    options = typeof exported === "function" ? await (exported as (env: NodeJS.ProcessEnv) => unknown)(env) : exported;
  } catch (error) {
    throw new ConfigError(
      `the default export of ${path} threw: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new ConfigError(
      `${path} must default-export the createAuth options (an object) or a function of the environment returning them`,
    );
  return options as CreateAuthOptions;
}
