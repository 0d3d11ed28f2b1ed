import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
import { describeViolations, structuralViolations } from "./invariants.ts";
import { noSessionFromReplacedPassword } from "./flow-invariants.ts";
import { takeSnapshot } from "./snapshot.ts";
import { createScheduler, exploreInterleavings } from "./scheduler.ts";
import { hasher, reset, seedAda, signIn, type ResetOrder } from "./toy-flows.ts";

describe("the scheduler", () => {
  it("enumerates every interleaving of two flows' store calls exactly once: C(3+2, 2) = 10", async () => {
    const traces = new Set<string>();
    const report = await exploreInterleavings({
      async setup(wrap) {
        return { store: wrap(memoryStore()) };
      },
      flows: ({ store }) => ({
        a: async () => {
          for (const k of ["a1", "a2", "a3"]) await store.counters.hit(k, 1000, 0);
        },
        b: async () => {
          for (const k of ["b1", "b2"]) await store.counters.peek(k, 0);
        },
      }),
      async check(_, run) {
        traces.add(run.trace.join(" "));
      },
    });
    expect(report).toMatchObject({ explored: 10, exhaustive: true, seed: null });
    expect(traces.size).toBe(10);
  });

  it("lets a test choose the order, and passes the test's own calls through", async () => {
    const s = createScheduler(memoryStore());
    await s.store.counters.hit("setup", 1000, 0); // outside a flow: not scheduled
    const run = await s.run(
      {
        a: () => s.store.counters.hit("k", 1000, 0),
        b: () => s.store.counters.hit("k", 1000, 0),
      },
      (waiting) => waiting.findIndex((w) => w.flow === "b"),
    );
    expect(run.trace).toEqual(["b:counters.hit", "a:counters.hit"]);
    expect(run.results.b).toEqual({ ok: true, value: { count: 1, resetAt: 1000 } });
    expect(run.results.a).toEqual({ ok: true, value: { count: 2, resetAt: 1000 } });
  });

  it("samples with a printed seed past the limit, and the same seed replays the same interleavings", async () => {
    const sample = async () => {
      const traces: string[] = [];
      const report = await exploreInterleavings({
        async setup(wrap) {
          return { store: wrap(memoryStore()) };
        },
        flows: ({ store }) => ({
          a: async () => {
            for (let i = 0; i < 6; i++) await store.counters.hit("a", 1000, 0);
          },
          b: async () => {
            for (let i = 0; i < 6; i++) await store.counters.hit("b", 1000, 0);
          },
        }),
        async check(_, run) {
          traces.push(run.trace.join(" "));
        },
        exhaustiveLimit: 5,
        samples: 20,
        seed: 1234,
      });
      return { report, traces };
    };
    const first = await sample();
    expect(first.report).toMatchObject({ explored: 25, exhaustive: false, seed: 1234 });
    expect((await sample()).traces).toEqual(first.traces);
    expect(new Set(first.traces.slice(5)).size).toBeGreaterThan(1);
  });

  const signInByReset = (order: ResetOrder) =>
    exploreInterleavings({
      async setup(wrap) {
        const store = wrap(memoryStore());
        await seedAda(store);
        return { store };
      },
      flows: ({ store }) => ({
        signIn: () => signIn(store, "old", "late-token"),
        reset: () => reset(store, order, "new"),
      }),
      async check({ store }) {
        const snap = await takeSnapshot(store, { userIds: ["u1"], sessionTokens: ["late-token", "attacker-token"] });
        const violations = [
          ...structuralViolations(snap),
          ...(await noSessionFromReplacedPassword(
            snap,
            [
              { token: "late-token", password: "old" },
              { token: "attacker-token", password: "old" },
            ],
            hasher,
          )),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
    });

  it("finds the planted bug: a reset that revokes sessions before writing the password lets an old-password sign-in survive", async () => {
    await expect(signInByReset("revoke-password-spend")).rejects.toThrow(
      /I4: a session signed in with a replaced password/,
    );
  });

  it("passes the same pair when the reset writes the password first", async () => {
    const report = await signInByReset("password-revoke-spend");
    expect(report.exhaustive).toBe(true);
    expect(report.explored).toBeGreaterThan(1);
  });
});
