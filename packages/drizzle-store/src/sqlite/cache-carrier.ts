import { AuthConfigError, type CacheCarrier } from "@latchkey/core";
import { inProcessCacheBus } from "@latchkey/core/internal";
const buses = new Map<string, ReturnType<typeof inProcessCacheBus>>();

type Fs = typeof import("node:fs");
type Path = typeof import("node:path");
type ProcessWithBuiltins = {
  pid: number;
  kill(pid: number, signal: number): void;
  getBuiltinModule?(id: string): unknown;
};

/** Node's `fs` and `path` where the runtime offers them synchronously (Node 20.16+, Bun, Deno), else null. */
function nodeModules(): { fs: Fs; path: Path; process: ProcessWithBuiltins } | null {
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process;
  const fs = proc?.getBuiltinModule?.("node:fs") as Fs | undefined;
  const path = proc?.getBuiltinModule?.("node:path") as Path | undefined;
  return proc && fs && path ? { fs, path, process: proc } : null;
}

/** The database file of a `file:` URL (query and fragment dropped); null for other URLs and in-memory databases. */
function fileOf(url: string): string | null {
  if (!/^file:/i.test(url)) return null;
  const path = url.replace(/[?#].*$/, "").slice("file:".length);
  return path === "" || path === ":memory:" ? null : path;
}

/**
 * One spelling per file: `file:auth.db`, `file:./auth.db` and the absolute path (or a symbolic link to it) are the
 * same database, so they share one bus.
 */
function canonical(file: string): string {
  const node = nodeModules();
  if (!node) return file;
  const absolute = node.path.resolve(file);
  try {
    return node.fs.realpathSync(absolute);
  } catch {
    return absolute; // not created yet
  }
}

/** The file beside the database where every process that opens it writes its pid (like SQLite's `-wal`, `-shm`). */
export const processRegistryOf = (file: string) => `${file}-latchkey-processes`;

/** Records that this process opened `file` (best effort: a read-only folder records nothing). */
function registerOpener(file: string): void {
  const node = nodeModules();
  if (!node) return;
  try {
    const registry = processRegistryOf(file);
    const known = node.fs.existsSync(registry) ? node.fs.readFileSync(registry, "utf8") : "";
    if (!known.split("\n").includes(String(node.process.pid)))
      node.fs.appendFileSync(registry, `${node.process.pid}\n`);
  } catch {
    // Nothing recorded: the check below cannot see this process, as it cannot see one on another machine.
  }
}

/** The other live processes of this machine that opened `file` with a Latchkey store. */
export function otherOpeners(file: string): number[] {
  const node = nodeModules();
  if (!node) return [];
  let text: string;
  try {
    text = node.fs.readFileSync(processRegistryOf(file), "utf8");
  } catch {
    return [];
  }
  const alive = (pid: number) => {
    try {
      node.process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as { code?: string }).code === "EPERM";
    }
  };
  const pids = new Set(
    text
      .split("\n")
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0),
  );
  return [...pids].filter((pid) => pid !== node.process.pid && alive(pid));
}

/**
 * The in-process cache carrier of a libSQL database file: every store this process opens on the same file (however
 * its URL spells the path) shares one bus, so a revocation through any of them reaches every cache. Null for
 * anything but a `file:` URL (a remote libSQL server is shared by other processes: pass `cache.carrier`).
 *
 * The bus reaches this process only. Every store that opens the file records its process beside it
 * (`<file>-latchkey-processes`), and asking for the carrier (`createAuth({ cache })`) while another live process of
 * this machine has opened the file is an `AuthConfigError`: that process's changes would never reach this cache.
 * Pass `cache.carrier` (Redis) then. Processes on other machines (a network file system) or in another pid
 * namespace (another container on a shared volume) cannot be seen: see docs/cache.md.
 */
export function sqliteCacheCarrier(url: string): (() => CacheCarrier) | null {
  const path = fileOf(url);
  if (path === null) return null;
  const file = canonical(path);
  registerOpener(file);
  return () => {
    const others = otherOpeners(file);
    if (others.length > 0)
      throw new AuthConfigError(
        "cache",
        `the libSQL file ${file} is open in other processes too (pid ${others.join(", ")}), and its cache carrier ` +
          "reaches this process only: their changes would never reach this cache. Pass cache.carrier " +
          "(redisCacheCarrier({ url }) from @latchkey/redis-store) (docs/cache.md)",
      );
    const bus = buses.get(file) ?? inProcessCacheBus();
    buses.set(file, bus);
    return bus.carrier();
  };
}
