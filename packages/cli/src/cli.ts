import { migrateCommand } from "./migrate/index.ts";
import { generateSecret } from "./secret/index.ts";
import { sweepCommand } from "./sweep/index.ts";

const USAGE = `Usage:
  latchkey secret                      print a fresh 64-character secret
  latchkey migrate --database <url>    apply schema migrations (postgres://, file:, libsql://, mongodb://)
  latchkey migrate --d1 <local-id>     apply them to the local D1 of wrangler dev (--persist-to <dir>)
  latchkey sweep --database <url>      delete expired rows (or $LATCHKEY_DATABASE_URL; --help for options)`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  async secret() {
    process.stdout.write(`${generateSecret()}\n`);
    return 0;
  },
  migrate: migrateCommand,
  sweep: sweepCommand,
};

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return name === undefined || name === "--help" || name === "-h" ? 0 : 2;
  }
  return command(rest);
}
