import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import type { Snapshot, SnapshotScope, Violation } from "@latchkey/test-support";
import type { Answer } from "./harness.ts";
import type { TestAuth } from "../test-auth.ts";

// What a fault case of the seams is (faults.test.ts runs each on the run's store, faults-compensating.test.ts under
// a compensating transaction): its auth's plugins, its passwords and its shape.

export const OLD = "correct horse battery";
export const NEW = "a brand new password";
export const plugins = [emailOtp({ emailChange: { enabled: true } }), apiKeys(), jwt()] as const;
export type T = TestAuth<typeof plugins>;

/** One multi-write flow under every fault: what it needs, what its success means, how a user repeats it. */
export interface FaultCase<C> {
  prepare(t: T): Promise<C>;
  request(t: T, c: C): Promise<Answer>;
  scope(c: C, a: Answer | null): SnapshotScope;
  /** What of the flow's effect is missing now (null: all of it happened). */
  missing(t: T, c: C, a: Answer | null): Promise<string | null>;
  /** Flow-specific invariants (I4, I5) on the snapshot. */
  invariants?(t: T, c: C, s: Snapshot): Promise<Violation[]>;
  /** Repeats the request as the user would; asserts it succeeds, or that it says why and the effect is there. */
  retry(t: T, c: C): Promise<void>;
}

/**
 * A list of fault cases and the function that adds one to it, each case with its own context type. A case module
 * fills its list once, as it loads; the cases hold no state, so the test files that run them may share them.
 */
export function faultCaseList() {
  const cases: Array<[string, FaultCase<never>]> = [];
  const faultCase = <C>(name: string, fc: FaultCase<C>) => {
    cases.push([name, fc as unknown as FaultCase<never>]);
  };
  return { cases: cases as ReadonlyArray<[string, FaultCase<never>]>, faultCase };
}
