import { describe, expect, it } from "vitest";
import type { CounterBinding, CounterStore } from "@latchkey/core";
import { databaseUnavailable } from "@latchkey/core/internal";
import { memoryStore } from "@latchkey/memory-store";
import { createTestAuth } from "../../../test/test-auth.ts";

/** A counter store with a connection of its own (what redisCounters is), whose ping can be made to fail. */
function ownCounters() {
  const inner = memoryStore().counters;
  const state = { up: true, pings: 0, binding: null as CounterBinding | null };
  const counters: CounterStore = {
    hit: (...args) => inner.hit(...args),
    peek: (...args) => inner.peek(...args),
    delete: (key) => inner.delete(key),
    rename: (from, to) => inner.rename(from, to),
    deleteExpired: (now, limit) => inner.deleteExpired(now, limit),
    async ping() {
      state.pings++;
      if (!state.up) throw databaseUnavailable(new Error("counter store away"));
    },
    bind(binding) {
      state.binding = binding;
    },
  };
  return { counters, state };
}

describe("/health checks the counter store too", () => {
  it("answers 503 DATABASE_UNAVAILABLE while the database answers but the counter store does not, 200 again after", async () => {
    const { counters, state } = ownCounters();
    const t = createTestAuth({ counters });
    // createAuth bound the counters to this app (secret and origin).
    expect(state.binding?.namespace).toMatch(/^[0-9a-f]{12}$/);
    expect((await t.request("GET", "/health")).status).toBe(200);
    expect(state.pings).toBe(1);
    state.up = false;
    const down = await t.request("GET", "/health");
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("5");
    expect(await down.json()).toEqual({ code: "DATABASE_UNAVAILABLE", message: expect.any(String) });
    state.up = true;
    expect((await t.request("GET", "/health")).status).toBe(200);
  });

  it("database counters have no ping of their own: the database's round trip is the check", async () => {
    const t = createTestAuth();
    expect(t.auth.core.ctx.store.counters.ping).toBeUndefined();
    expect((await t.request("GET", "/health")).status).toBe(200);
  });
});
