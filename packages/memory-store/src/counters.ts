import type { CounterStore } from "@latchkey/core";
import type { MemoryDatabase } from "./database.ts";

/** Ended windows are dropped on a hit once this many new keys were added since the last pass (and the map doubled). */
const PRUNE_AFTER_NEW_KEYS = 1024;

/**
 * `CounterStore` in memory: fixed windows that restart on the first hit after they end. Counters whose window
 * ended are freed: a hit that adds a key prunes ended ones once the map has grown by half since the last pass
 * (amortised O(1) per hit), so 100k one-off addresses do not stay in memory for good; `deleteExpired` (the sweep)
 * frees them too.
 */
export function countersPort(db: MemoryDatabase): CounterStore {
  const { counters } = db;
  let newKeys = 0;
  let sizeAfterPrune = 0;
  const prune = (now: number, limit: number) => {
    let n = 0;
    for (const [key, c] of counters) {
      if (n >= limit) break;
      if (c.resetAt <= now) {
        counters.delete(key);
        n++;
      }
    }
    return n;
  };
  // Synchronous, so a gated pair of hits has nothing between them.
  const hit = (key: string, windowMs: number, now: number) => {
    const c = counters.get(key);
    if (!c && ++newKeys >= Math.max(PRUNE_AFTER_NEW_KEYS, sizeAfterPrune / 2)) {
      prune(now, Number.POSITIVE_INFINITY);
      newKeys = 0;
      sizeAfterPrune = counters.size;
    }
    const next =
      c && c.resetAt > now ? { count: c.count + 1, resetAt: c.resetAt } : { count: 1, resetAt: now + windowMs };
    counters.set(key, next);
    return { ...next };
  };
  return {
    async hit(key, windowMs, now) {
      return hit(key, windowMs, now);
    },
    async hitGated(gate, next, now) {
      const gated = hit(gate.key, gate.windowMs, now);
      return { gate: gated, next: gated.count <= gate.max ? hit(next.key, next.windowMs, now) : null };
    },
    async peek(key, now) {
      const c = counters.get(key);
      return c && c.resetAt > now ? { ...c } : null;
    },
    async peekMany(keys, now) {
      return keys.map((key) => {
        const c = counters.get(key);
        return c && c.resetAt > now ? { ...c } : null;
      });
    },
    async delete(key) {
      counters.delete(key);
    },
    async rename(from, to) {
      const c = counters.get(from);
      counters.delete(from);
      counters.delete(to);
      if (c) counters.set(to, c);
    },
    async deleteExpired(now, limit = Number.POSITIVE_INFINITY) {
      return prune(now, limit);
    },
  };
}
