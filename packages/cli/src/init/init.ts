import { existsSync, writeFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { starterConfig } from "./template.ts";

const USAGE = `Usage: latchkey init [--file <name>] [--force]

  --file    where to write the config (default latchkey.config.ts; a .mjs or .js name gets plain JavaScript)
  --force   overwrite the file when it exists
`;

/** What to do after `init`, printed to stdout. */
function nextSteps(file: string): string {
  return `Wrote ${file}. Next:

  1. Install what the config imports (skip what you have):
       npm install @latchkey/cli @latchkey/core @latchkey/hono-adapter @latchkey/drizzle-store hono pg
     (@libsql/client instead of pg for a file: database)
  2. Set the environment:
       export LATCHKEY_SECRET="$(npx latchkey secret)"
       export LATCHKEY_DATABASE_URL=postgres://user:password@localhost:5432/app   (or file:./latchkey.db)
       export LATCHKEY_BASE_URL=http://localhost:3000
     (NODE_ENV=development for plain-HTTP cookies on a laptop; LATCHKEY_TRUSTED_ORIGINS for a browser front end)
  3. Create the tables:
       npx latchkey migrate --database "$LATCHKEY_DATABASE_URL"
  4. Start the server:
       npx latchkey serve${basename(file).startsWith("latchkey.config.") ? "" : ` --config ${file}`}
     then: curl http://localhost:3000/health
`;
}

/**
 * `latchkey init`: writes a commented starter config and says what to run next. Exit code 1 when the file exists
 * (without `--force`) or cannot be written, 2 on bad usage.
 *
 * @example
 * process.exitCode = await initCommand([]);
 */
export async function initCommand(args: string[]): Promise<number> {
  let values: { file?: string; force?: boolean; help?: boolean };
  try {
    values = parseArgs({
      args,
      options: { file: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }).values;
  } catch (error) {
    process.stderr.write(`latchkey init: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = values.file ?? "latchkey.config.ts";
  const extension = extname(file);
  if (![".ts", ".mts", ".mjs", ".js"].includes(extension)) {
    process.stderr.write(`latchkey init: --file must end in .ts, .mts, .mjs or .js, got ${file}\n`);
    return 2;
  }
  const path = resolve(process.cwd(), file);
  if (existsSync(path) && !values.force) {
    process.stderr.write(`latchkey init: ${path} exists; pass --force to overwrite it\n`);
    return 1;
  }
  try {
    writeFileSync(path, starterConfig(extension === ".ts" || extension === ".mts"));
  } catch (error) {
    process.stderr.write(`latchkey init: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  process.stdout.write(nextSteps(file));
  return 0;
}
