import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { processTreeCpuMs } from "./process.ts";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** One throwaway PostgreSQL cluster for a bench run; both libraries get their own database on it. */
export interface BenchPostgres {
  /** `postgres://` URL of the maintenance database (`postgres`). */
  adminUrl: string;
  version: string;
  /** The server settings the cluster was started with, for the report. */
  settings: string;
  /** CPU time of the whole cluster (postmaster, backends, background processes) so far, in ms. */
  cpuMs(): number;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const ROOT = "/usr/lib/postgresql";

function binDir(): string {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0])
    throw new Error(`no PostgreSQL server binaries under ${ROOT} (install postgresql, as .ci/run does)`);
  return join(ROOT, versions[0], "bin");
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

/**
 * Durable like a production server (fsync on, full page writes), except that a commit does not wait for its WAL
 * flush (`synchronous_commit=off`): the PostgreSQL counterpart of the libSQL side's WAL + synchronous=NORMAL, and
 * the same for both libraries. Shared buffers large enough to hold the 1M-row tables and their indexes.
 */
const SETTINGS = [
  "synchronous_commit=off",
  "shared_buffers=512MB",
  "max_connections=200",
  "max_wal_size=4GB",
  "checkpoint_timeout=30min",
];

/** Starts a cluster from Debian's binaries in a temporary folder on a free loopback port (the `postgres` user when root). */
export async function startBenchPostgres(cpus: string | null): Promise<BenchPostgres> {
  const bin = binDir();
  const dir = await mkdtemp(join(tmpdir(), "latchkey-bench-pg-"));
  const dataDir = join(dir, "data");
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const asOwner = (tool: string, args: string[]) => {
    const command = [join(bin, tool), ...args];
    const pinned = cpus ? ["taskset", "-c", cpus, ...command] : command;
    const full = root ? ["runuser", "-u", "postgres", "--", ...pinned] : pinned;
    return run(full[0] as string, full.slice(1));
  };
  if (root) {
    const { stdout: uid } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const stop = async () => {
    await asOwner("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await asOwner("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"]);
    const options = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      ...SETTINGS.map((s) => `-c ${s}`),
    ].join(" ");
    await asOwner("pg_ctl", ["-D", dataDir, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  } catch (error) {
    await stop();
    throw error;
  }
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // The postmaster's pid is the first line of postmaster.pid (this process is root or the cluster's owner).
  const postmasterPid = await readFile(join(dataDir, "postmaster.pid"), "utf8")
    .then((text) => Number(text.split("\n")[0]))
    .catch(() => Number.NaN);
  const version = ((await admin.query("show server_version")).rows[0] as { server_version: string }).server_version;
  return {
    adminUrl,
    version,
    settings: SETTINGS.join(", "),
    cpuMs: () => (Number.isInteger(postmasterPid) ? processTreeCpuMs(postmasterPid) : Number.NaN),
    async createDatabase(name) {
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await stop();
    },
  };
}
