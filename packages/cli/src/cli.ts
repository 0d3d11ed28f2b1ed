import { initCommand } from "./init/index.ts";
import { migrateCommand } from "./migrate/index.ts";
import { rotateJwksCommand } from "./rotate-jwks/index.ts";
import { generateSecret } from "./secret/index.ts";
import { sweepCommand } from "./sweep/index.ts";
import { serveCommand } from "./serve/index.ts";
import { adminCommand } from "./admin/index.ts";

const USAGE = `Usage:
  latchkey secret                      print a fresh 64-character secret
  latchkey migrate --database <url>    apply schema migrations (postgres://, file:, libsql://, mongodb://)
  LATCHKEY_DATABASE_URL=<url> latchkey migrate   the same, with the URL kept out of ps and shell history
  latchkey migrate --d1 <local-id>     apply them to the local D1 of wrangler dev (--persist-to <dir>)
  latchkey init                        write a commented latchkey.config.ts to start from (--help for options)
  latchkey serve                       run Latchkey as a server from latchkey.config.* (--help for options)
  latchkey rotate-jwks                 a new JWT signing key now, from the same config (--force after a secret change)
  latchkey sweep --database <url>      delete expired rows (or $LATCHKEY_DATABASE_URL; --help for options)
  latchkey admin <find|ban|unban|make-admin> --database <url>   users, bans and the first admin (--help)`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  async secret() {
    process.stdout.write(`${generateSecret()}\n`);
    return 0;
  },
  migrate: migrateCommand,
  init: initCommand,
  serve: serveCommand,
  "rotate-jwks": rotateJwksCommand,
  sweep: sweepCommand,
  admin: adminCommand,
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
