import { parseArgs } from "node:util";
import { JWT_PLUGIN_ID } from "@latchkey/core";
import { ConfigError, loadConfig, resolveConfigPath } from "../serve/config.ts";
import { buildAuth } from "../serve/server.ts";

const USAGE = `Usage: latchkey rotate-jwks [--config <file>] [--force]

  Creates a new JWT signing key now (the jwt() plugin's keys, in the config's database) and retires the current one,
  which stays in /jwks for jwt({ gracePeriod }) so tokens it signed keep verifying. Running servers sign with the
  new key within jwt({ keyCacheTtl }).

  --config  the config module (default: latchkey.config.ts, .mts, .mjs or .js in this folder)
  --force   rotate even when the current private key cannot be decrypted with this secret (JWT_KEY_UNREADABLE:
            the recovery after a secret change, see docs/jwt.md)
`;

type Rotate = (options?: { force?: boolean }) => Promise<{ kid: string }>;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * `latchkey rotate-jwks`: `auth.api.rotateJwks()` for deployments that run `latchkey serve` and have no JavaScript
 * of their own to call it from. Exit code 0 with the new kid, 1 when the config or the rotation fails, 2 on bad
 * usage.
 *
 * @example
 * process.exitCode = await rotateJwksCommand(["--config", "latchkey.config.ts"]);
 */
export async function rotateJwksCommand(args: string[]): Promise<number> {
  let values: { config?: string; force?: boolean; help?: boolean };
  try {
    values = parseArgs({
      args,
      options: { config: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }).values;
  } catch (error) {
    process.stderr.write(`latchkey rotate-jwks: ${describe(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const fail = (message: string) => {
    process.stderr.write(`latchkey rotate-jwks: ${message}\n`);
    return 1;
  };
  let auth: Awaited<ReturnType<typeof buildAuth>>;
  try {
    auth = await buildAuth(await loadConfig(resolveConfigPath(values.config ?? null, process.cwd())));
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message);
    if (error instanceof Error && error.name === "AuthConfigError") return fail(`invalid config: ${error.message}`);
    return fail(describe(error));
  }
  try {
    if (!auth.core.plugins.get(JWT_PLUGIN_ID))
      return fail("the config does not install the jwt() plugin: there are no keys");
    const { kid } = await (auth.api as unknown as { rotateJwks: Rotate }).rotateJwks({ force: values.force === true });
    process.stdout.write(`new signing key ${kid}; the previous one stays in /jwks for the grace period\n`);
    return 0;
  } catch (error) {
    return fail(describe(error));
  } finally {
    await auth.close();
  }
}
