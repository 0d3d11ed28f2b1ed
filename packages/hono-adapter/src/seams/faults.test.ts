import { describe, expect, it } from "vitest";
import { describeViolations, exploreFaults, structuralViolations, takeSnapshot } from "@latchkey/test-support";
import { report, seamAuth, sharedStore } from "../../test/seams/harness.ts";
import { plugins, type T } from "../../test/seams/fault-case-kit.ts";
import { faultCases, underFaults } from "../../test/seams/under-faults.ts";

// Every multi-write flow under every fault on the run's store (the cases: sign-in-fault-cases.ts and
// account-fault-cases.ts), and the JWT key rotation.

describe("a failure at every write step", () => {
  for (const [name, fc] of faultCases) underFaults(name, fc);

  it("JWT rotation: every k-th write failing, and a crash after every k-th write, leaves one active key and a retry", async () => {
    const store = sharedStore();
    const r = await exploreFaults({
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins }) as T;
        await t.auth.api.getJwks();
        return { t };
      },
      flow: ({ t }) => t.auth.api.rotateJwks(),
      async afterFault({ t }) {
        // A restarted instance loads the ring (and heals what a crash left) before anyone signs.
        const fresh = seamAuth(t.store, { plugins }) as T;
        await fresh.auth.api.getJwks();
        const snap = await takeSnapshot(t.store, { jwks: true });
        expect(structuralViolations(snap), describeViolations(structuralViolations(snap))).toEqual([]);
      },
      async retry({ t }) {
        await t.auth.api.rotateJwks();
        const snap = await takeSnapshot(t.store, { jwks: true });
        expect(structuralViolations(snap)).toEqual([]);
      },
    });
    report("JWT rotation", r);
  });
});
