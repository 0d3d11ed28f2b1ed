import type { CacheCarrier } from "@latchkey/core";
import { inProcessCacheBus } from "@latchkey/core/internal";
const buses = new Map<string, ReturnType<typeof inProcessCacheBus>>();

/** The bus key of a `file:` URL (query and fragment dropped); null for other URLs and in-memory databases. */
function fileOf(url: string): string | null {
  if (!/^file:/i.test(url)) return null;
  const path = url.replace(/[?#].*$/, "").slice("file:".length);
  return path === "" || path === ":memory:" ? null : path;
}

/**
 * The in-process cache carrier of a libSQL database file: every store this process opens with the same `file:` URL
 * shares one bus, so a revocation through any of them reaches every cache. Null for anything but a `file:` URL (a remote
 * libSQL server is shared by other processes: pass `cache.carrier`). It assumes one process serves the file: see
 * docs/cache.md.
 */
export function sqliteCacheCarrier(url: string): (() => CacheCarrier) | null {
  const file = fileOf(url);
  if (file === null) return null;
  return () => {
    const bus = buses.get(file) ?? inProcessCacheBus();
    buses.set(file, bus);
    return bus.carrier();
  };
}
