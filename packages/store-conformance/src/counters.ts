import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { T0, uid } from "./fixtures.ts";

/** Conformance of the `counters` port; registered by `runStoreConformance`. */
export function describeCounters(getStore: () => Store): void {
  describe("counters", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("counts within a window and restarts after it", async () => {
      const key = uid("c");
      const now = T0.getTime();
      expect(await store.counters.peek(key, now)).toBeNull();
      expect(await store.counters.hit(key, 60_000, now)).toEqual({ count: 1, resetAt: now + 60_000 });
      expect(await store.counters.hit(key, 60_000, now + 1000)).toEqual({ count: 2, resetAt: now + 60_000 });
      expect(await store.counters.peek(key, now + 2000)).toEqual({ count: 2, resetAt: now + 60_000 });
      expect(await store.counters.peek(key, now + 60_000)).toBeNull();
      expect(await store.counters.hit(key, 60_000, now + 60_000)).toEqual({ count: 1, resetAt: now + 120_000 });
    });

    it("50 parallel hits give exactly 1..50", async () => {
      const key = uid("c");
      const now = T0.getTime();
      const results = await Promise.all(Array.from({ length: 50 }, () => store.counters.hit(key, 60_000, now)));
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect((await store.counters.peek(key, now))!.count).toBe(50);
    });

    it("deletes and renames", async () => {
      const from = uid("c");
      const to = uid("c");
      const now = T0.getTime();
      await store.counters.hit(from, 60_000, now);
      await store.counters.hit(from, 60_000, now);
      await store.counters.hit(to, 60_000, now);
      await store.counters.rename(from, to);
      expect(await store.counters.peek(from, now)).toBeNull();
      expect(await store.counters.peek(to, now)).toEqual({ count: 2, resetAt: now + 60_000 });
      await store.counters.rename(uid("absent"), to);
      expect(await store.counters.peek(to, now)).toBeNull();
      await store.counters.hit(to, 60_000, now);
      await store.counters.delete(to);
      expect(await store.counters.peek(to, now)).toBeNull();
    });
  });
}
