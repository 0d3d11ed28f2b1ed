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

    it("peeks several keys at once: one state or null per key, in the order given", async () => {
      const { counters } = store;
      if (!counters.peekMany) throw new Error(`${store.kind}: every bundled counter store implements peekMany`);
      const [live, ended, absent] = [uid("c"), uid("c"), uid("c")];
      const now = T0.getTime();
      await counters.hit(live, 60_000, now);
      await counters.hit(live, 60_000, now);
      await counters.hit(ended, 1000, now);
      expect(await counters.peekMany([ended, absent, live], now + 1000)).toEqual([
        null,
        null,
        { count: 2, resetAt: now + 60_000 },
      ]);
      expect(await counters.peekMany([live, live], now)).toEqual([
        { count: 2, resetAt: now + 60_000 },
        { count: 2, resetAt: now + 60_000 },
      ]);
      expect(await counters.peekMany([], now)).toEqual([]);
      // Several live keys at once: every one answered (a libSQL file store once stepped only the first row).
      const [second, third] = [uid("c"), uid("c")];
      await counters.hit(second, 60_000, now);
      await counters.hit(third, 30_000, now);
      expect(await counters.peekMany([third, live, second], now)).toEqual([
        { count: 1, resetAt: now + 30_000 },
        { count: 2, resetAt: now + 60_000 },
        { count: 1, resetAt: now + 60_000 },
      ]);
    });

    it("hits a gate and, only when it admits, the next counter: a refused call leaves the next untouched", async () => {
      const { counters } = store;
      if (!counters.hitGated) throw new Error(`${store.kind}: every bundled counter store implements hitGated`);
      const [gate, next] = [uid("gate"), uid("next")];
      const now = T0.getTime();
      const hits = (at: number, max = 1) =>
        counters.hitGated!({ key: gate, windowMs: 60_000, max }, { key: next, windowMs: 900_000 }, at);
      expect(await hits(now)).toEqual({
        gate: { count: 1, resetAt: now + 60_000 },
        next: { count: 1, resetAt: now + 900_000 },
      });
      expect(await hits(now + 1000)).toEqual({ gate: { count: 2, resetAt: now + 60_000 }, next: null });
      expect(await counters.peek(next, now + 1000)).toEqual({ count: 1, resetAt: now + 900_000 });
      // A gate with room left admits; one at its max does not.
      expect(await hits(now + 2000, 3)).toEqual({
        gate: { count: 3, resetAt: now + 60_000 },
        next: { count: 2, resetAt: now + 900_000 },
      });
      expect(await hits(now + 3000, 3)).toEqual({ gate: { count: 4, resetAt: now + 60_000 }, next: null });
      // The gate's window ended: it starts over and admits; the next counter's window goes on.
      expect(await hits(now + 60_000)).toEqual({
        gate: { count: 1, resetAt: now + 120_000 },
        next: { count: 3, resetAt: now + 900_000 },
      });
      // The next counter's window ended too: it starts over.
      expect(await hits(now + 900_000)).toEqual({
        gate: { count: 1, resetAt: now + 960_000 },
        next: { count: 1, resetAt: now + 1_800_000 },
      });
      expect(await counters.peek(gate, now + 900_000)).toEqual({ count: 1, resetAt: now + 960_000 });
    });

    it("20 parallel gated hits on a fresh gate with max 1: the gate counts 1..20 and exactly one hits the next", async () => {
      const { counters } = store;
      if (!counters.hitGated) throw new Error(`${store.kind}: every bundled counter store implements hitGated`);
      const [gate, next] = [uid("gate"), uid("next")];
      const now = T0.getTime();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          counters.hitGated!({ key: gate, windowMs: 60_000, max: 1 }, { key: next, windowMs: 900_000 }, now),
        ),
      );
      expect(results.map((r) => r.gate.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const admitted = results.filter((r) => r.next !== null);
      expect(admitted).toEqual([
        { gate: { count: 1, resetAt: now + 60_000 }, next: { count: 1, resetAt: now + 900_000 } },
      ]);
      expect(await counters.peek(next, now)).toEqual({ count: 1, resetAt: now + 900_000 });
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

// Far before every other fixture, so a sweep "now" here only ever meets this file's rows in a shared store.
const ANCIENT = Date.UTC(2001, 0, 1);

/**
 * `counters.deleteExpired`, the sweep's part of the port: for database-backed counters (Redis expires keys itself
 * and answers 0, so `runCounterConformance` leaves this out).
 */
export function describeCounterSweep(getStore: () => Store): void {
  describe("counters sweep", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("deletes ended windows in batches of at most `limit`, and keeps live ones", async () => {
      const ended = Array.from({ length: 5 }, () => uid("c-ended"));
      for (const key of ended) await store.counters.hit(key, 1000, ANCIENT);
      const live = uid("c-live");
      await store.counters.hit(live, 60_000, ANCIENT);
      const sweepAt = ANCIENT + 1000;
      const batches: number[] = [];
      for (;;) {
        const removed = await store.counters.deleteExpired(sweepAt, 2);
        batches.push(removed);
        if (removed === 0) break;
      }
      expect(batches).toEqual([2, 2, 1, 0]);
      // Peeking at a time their windows were live shows the rows themselves are gone, not merely ended.
      for (const key of ended) expect(await store.counters.peek(key, ANCIENT)).toBeNull();
      expect(await store.counters.peek(live, ANCIENT)).toEqual({ count: 1, resetAt: ANCIENT + 60_000 });
      expect(await store.counters.deleteExpired(sweepAt)).toBe(0);
      expect(await store.counters.deleteExpired(ANCIENT + 60_000)).toBe(1);
      expect(await store.counters.peek(live, ANCIENT)).toBeNull();
    });
  });
}
