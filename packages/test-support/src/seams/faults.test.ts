import { hashSecret } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
import { createFaultStore, exploreFaults, InjectedCrash, InjectedWriteFailure } from "./faults.ts";
import { runAsFlow } from "./instrument.ts";
import { describeViolations, structuralViolations } from "./invariants.ts";
import { spentTokenHadEffect } from "./flow-invariants.ts";
import { takeSnapshot } from "./snapshot.ts";
import { IDENTIFIER, reset, resetRow, seedAda, session, type ResetOrder } from "./toy-flows.ts";

describe("the fault injector", () => {
  it("fails exactly the k-th write, and after a crash refuses every later call", async () => {
    const f = createFaultStore(memoryStore());
    f.arm({ mode: "fail", at: 2 });
    await f.store.counters.hit("x", 1000, 0);
    await expect(f.store.counters.hit("x", 1000, 0)).rejects.toBeInstanceOf(InjectedWriteFailure);
    expect(await f.store.counters.hit("x", 1000, 0)).toMatchObject({ count: 2 });
    f.arm({ mode: "crash", at: 1 });
    await f.store.counters.hit("y", 1000, 0);
    await expect(f.store.counters.peek("y", 0)).rejects.toBeInstanceOf(InjectedCrash);
    f.disarm();
    expect(await f.store.counters.peek("y", 0)).toMatchObject({ count: 1 });
    expect(f.writes).toEqual(["counters.hit"]);
  });

  it("rolls a transaction back when a write inside it fails", async () => {
    const f = createFaultStore(memoryStore());
    f.arm({ mode: "fail", at: 2 });
    await expect(
      f.store.transaction(async (tx) => {
        await tx.sessions.create(session("t1"));
        await tx.sessions.create(session("t2"));
      }),
    ).rejects.toBeInstanceOf(InjectedWriteFailure);
    f.disarm();
    expect(await f.store.sessions.findByTokenHash(hashSecret("t1"))).toBeNull();
  });

  const resetUnderFaults = (order: ResetOrder) =>
    exploreFaults({
      async setup(wrap) {
        const store = wrap(memoryStore());
        await seedAda(store);
        return { store };
      },
      flow: ({ store }) => runAsFlow("reset", () => reset(store, order, "new")),
      async afterFault({ store }, outcome) {
        expect(outcome.ok, "a faulted reset must not answer success").toBe(false);
        const snap = await takeSnapshot(store, {
          userIds: ["u1"],
          sessionTokens: ["attacker-token"],
          identifiers: [IDENTIFIER],
        });
        const violations = [
          ...structuralViolations(snap),
          ...spentTokenHadEffect(IDENTIFIER, snap.verifications.get(IDENTIFIER), () => {
            const replaced = (snap.accounts.get("u1") ?? []).some((a) => a.passwordHash === "plain:new");
            const revoked = !snap.sessions.get("attacker-token");
            if (replaced && revoked) return "complete";
            if (!replaced && !revoked) return "none";
            return { partial: replaced ? "the other sessions are alive" : "the password was not replaced" };
          }),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
      async retry({ store }) {
        // Either the retry resets, or the link is spent, which (I5) means the reset already happened.
        if (!(await reset(store, order, "new"))) {
          await store.verifications.issue(resetRow("v2")); // a new link
          await reset(store, order, "new");
        }
        expect((await store.accounts.listByUser("u1"))[0]?.passwordHash).toBe("plain:new");
        expect(await store.sessions.findByTokenHash(hashSecret("attacker-token"))).toBeNull();
      },
    });

  it("finds the planted bug: a reset that spends the link before revoking leaves the attacker's session when the revocation fails", async () => {
    await expect(resetUnderFaults("password-spend-revoke")).rejects.toThrow(
      /I5: reset:ada is spent but only part of its effect happened: the other sessions are alive[\s\S]*--- fault: crash after verifications.consume/,
    );
  });

  it("passes every fault of a reset that spends the link last: 3 writes, 6 faults", async () => {
    expect(await resetUnderFaults("password-revoke-spend")).toEqual({
      writes: ["accounts.upsertPassword", "sessions.deleteByUser", "verifications.consume"],
      injected: 6,
    });
  });
});
