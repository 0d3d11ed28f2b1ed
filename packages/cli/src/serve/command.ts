import { parseArgs } from "node:util";
import { ConfigError, loadConfig, resolveConfigPath } from "./config.ts";
import { DatabaseWaitError, ProxyHopsError, startServer, type RunningServer } from "./server.ts";

const USAGE = `Usage: latchkey serve [--config <file>] [--port <n>] [--host <address>] [--proxy-hops <n>]
                      [--database-wait <seconds>] [--drain-timeout <seconds>]

  --config          the config module (default: latchkey.config.ts, .mts, .mjs or .js in this folder)
  --port            default: $PORT, else 3000 (0 picks a free port)
  --host            default: $HOST, else 127.0.0.1 (use 0.0.0.0 in a container)
  --proxy-hops      behind a load balancer or reverse proxy: how many proxies overwrite X-Forwarded-For
                    (the client address for rate limits is read there); default: $LATCHKEY_PROXY_HOPS, else 0
                    (the socket's address: right only when clients connect to this process directly)
  --database-wait   how long to wait for the database at start (default 30)
  --drain-timeout   how long requests in flight may take after SIGTERM (default 25)
`;

function seconds(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value.replace(/s$/, ""));
  if (!Number.isFinite(n) || n < 0) throw new TypeError(`--${name} must be a number of seconds, got ${value}`);
  return n * 1000;
}

function hopsOf(value: string | undefined): number {
  const text = value ?? process.env.LATCHKEY_PROXY_HOPS ?? "0";
  const hops = Number(text === "" ? "0" : text);
  if (!Number.isInteger(hops) || hops < 0 || hops > 16)
    throw new TypeError(`--proxy-hops must be an integer from 0 to 16, got ${text}`);
  return hops;
}

function portOf(value: string | undefined): number {
  const text = value ?? process.env.PORT ?? "3000";
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TypeError(`--port must be an integer from 0 to 65535, got ${text}`);
  return port;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * `latchkey serve`: Latchkey as its own HTTP server, from a config module. Exit code 1 when the config is
 * missing or invalid or the database does not answer in time, 2 on bad usage; after SIGTERM or SIGINT, 0 once the
 * requests in flight finished and the store closed.
 *
 * @example
 * process.exitCode = await serveCommand(["--config", "latchkey.config.ts", "--port", "8787"]);
 */
export async function serveCommand(args: string[]): Promise<number> {
  let flags: Record<string, string | boolean | undefined>;
  let settings: { port: number; host: string; databaseWaitMs: number; drainTimeoutMs: number; proxyHops: number };
  try {
    flags = parseArgs({
      args,
      options: {
        config: { type: "string" },
        port: { type: "string", short: "p" },
        host: { type: "string" },
        "proxy-hops": { type: "string" },
        "database-wait": { type: "string" },
        "drain-timeout": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
    settings = {
      port: portOf(flags.port as string | undefined),
      host: (flags.host as string | undefined) ?? process.env.HOST ?? "127.0.0.1",
      databaseWaitMs: seconds(flags["database-wait"] as string | undefined, 30, "database-wait"),
      drainTimeoutMs: seconds(flags["drain-timeout"] as string | undefined, 25, "drain-timeout"),
      proxyHops: hopsOf(flags["proxy-hops"] as string | undefined),
    };
  } catch (error) {
    process.stderr.write(`latchkey serve: ${describe(error)}\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const fail = (message: string) => {
    process.stderr.write(`latchkey serve: ${message}\n`);
    return 1;
  };

  let server: RunningServer;
  let path: string;
  try {
    path = resolveConfigPath((flags.config as string | undefined) ?? null, process.cwd());
    const options = await loadConfig(path);
    server = await startServer(options, { ...settings, log });
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message);
    if (error instanceof Error && error.name === "AuthConfigError") return fail(`invalid config: ${error.message}`);
    if (error instanceof DatabaseWaitError || error instanceof ProxyHopsError) return fail(error.message);
    return fail(`could not start: ${describe(error)}`);
  }
  // A rejected promise nobody awaited (a driver's background error) is logged, not a reason to drop every
  // request in flight; the health check reports a database that is really gone.
  const onRejection = (reason: unknown) =>
    process.stderr.write(`latchkey serve: unhandled rejection: ${describe(reason)}\n`);
  process.on("unhandledRejection", onRejection);
  log(`latchkey listening on ${server.url} (config ${path}; auth at ${server.basePath || "/"}, health at /health)`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  log(`${signal}: finishing the requests in flight, then closing`);
  // A second signal while draining ends the process at once.
  const now = () => process.exit(1);
  process.once("SIGTERM", now);
  process.once("SIGINT", now);
  try {
    await server.stop();
  } catch (error) {
    return fail(`closing the store failed: ${describe(error)}`);
  } finally {
    process.off("unhandledRejection", onRejection);
  }
  log("latchkey stopped");
  return 0;
}
