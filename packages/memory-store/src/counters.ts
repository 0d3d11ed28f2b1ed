import type { CounterStore } from "@latchkey/core";
import type { MemoryDatabase } from "./database.ts";

/** `CounterStore` in memory: fixed windows that restart on the first hit after they end. */
export function countersPort(db: MemoryDatabase): CounterStore {
  const { counters } = db;
  return {
    async hit(key, windowMs, now) {
      const c = counters.get(key);
      const next =
        c && c.resetAt > now ? { count: c.count + 1, resetAt: c.resetAt } : { count: 1, resetAt: now + windowMs };
      counters.set(key, next);
      return { ...next };
    },
    async peek(key, now) {
      const c = counters.get(key);
      return c && c.resetAt > now ? { ...c } : null;
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
  };
}
