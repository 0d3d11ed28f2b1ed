import { expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { describeViolations, exploreFaults, structuralViolations, takeSnapshot } from "@latchkey/test-support";
import { report, seamAuth, sharedStore } from "./harness.ts";
import { accountFaultCases } from "./account-fault-cases.ts";
import { plugins, type FaultCase, type T } from "./fault-case-kit.ts";
import { signInFaultCases } from "./sign-in-fault-cases.ts";

/**
 * One test of `fc` under every fault: every k-th write failing, then a crash after every k-th write, on
 * `makeStore()` (the run's store unless given), checking the invariants after each and that a user's retry finishes.
 */
export function underFaults<C>(name: string, fc: FaultCase<C>, makeStore: () => FullStore = sharedStore) {
  it(`${name}: every k-th write failing, and a crash after every k-th write, leaves the invariants and a retry`, async () => {
    const store = makeStore();
    const r = await exploreFaults({
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins }) as T;
        return { t, c: await fc.prepare(t) };
      },
      flow: ({ t, c }) => fc.request(t, c),
      async afterFault({ t, c }, outcome, fault) {
        const a = outcome.ok ? outcome.value : null;
        if (a && fault.mode === "fail") {
          if (a.status === 200) expect(await fc.missing(t, c, a), "a 200 for work not done").toBeNull();
          else {
            expect(a.status).toBeGreaterThanOrEqual(400);
            expect(typeof a.body.code, JSON.stringify(a.body)).toBe("string");
            expect(typeof a.body.message).toBe("string");
          }
        }
        const snap = await takeSnapshot(t.store, fc.scope(c, a));
        const violations = [...structuralViolations(snap), ...((await fc.invariants?.(t, c, snap)) ?? [])];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
      async retry({ t, c }) {
        await fc.retry(t, c);
        expect(await fc.missing(t, c, null), "after the retry").toBeNull();
      },
    });
    report(store.kind.endsWith("(compensation)") ? `${name} [compensation]` : name, r);
  });
}

/** Every fault case, in order: faults.test.ts runs each on the run's store, faults-compensating.test.ts under a compensating transaction. */
export const faultCases = [...signInFaultCases, ...accountFaultCases];
