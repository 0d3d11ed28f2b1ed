import { beforeAll, describe, expect, it } from "vitest";
import type { Store, TwoFactorRecord } from "@latchkey/core";
import { at, T0, uid, user } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

function record(userId: string, over: Partial<TwoFactorRecord> = {}): TwoFactorRecord {
  return {
    userId,
    secret: uid("sealed"),
    enabled: false,
    lastStep: null,
    recoveryCodes: [uid("rc"), uid("rc"), uid("rc")],
    trustedAfter: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** Conformance of the `twoFactor` port; registered by `runStoreConformance`. */
export function describeTwoFactor(getStore: () => Store): void {
  describe("twoFactor", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    /** A stored user with a pending (not yet enabled) record. */
    async function pending(context: Parameters<typeof portOf>[2], over: Partial<TwoFactorRecord> = {}) {
      const port = portOf(store, "twoFactor", context);
      const u = user();
      await store.users.create(u, []);
      const r = record(u.id, over);
      expect(await port.savePending(r)).toBe(true);
      return { port, r };
    }

    /** A stored user with an enabled record whose last step is 100. */
    async function enabled(context: Parameters<typeof portOf>[2]) {
      const { port, r } = await pending(context);
      expect(await port.acceptStep(r.userId, r.secret, 100, at(1000), { enable: true })).toBe(true);
      return { port, r };
    }

    it("round-trips a pending record and replaces an unfinished setup, never an enabled one", async (context) => {
      const { port, r } = await pending(context);
      expect(await port.find(r.userId)).toEqual(r);
      const again = record(r.userId, { createdAt: at(5), updatedAt: at(5) });
      expect(await port.savePending(again)).toBe(true);
      expect(await port.find(r.userId)).toEqual(again);
      expect(await port.acceptStep(r.userId, again.secret, 7, at(10), { enable: true })).toBe(true);
      const on = await port.find(r.userId);
      expect(on).toEqual({ ...again, enabled: true, lastStep: 7, updatedAt: at(10) });
      expect(await port.savePending(record(r.userId))).toBe(false);
      expect(await port.find(r.userId)).toEqual(on);
      expect(await port.find(uid("nobody"))).toBeNull();
    });

    it("refuses a record for a user that is not there, and goes with its user", async (context) => {
      const port = portOf(store, "twoFactor", context);
      const ghost = uid("ghost");
      expect(await port.savePending(record(ghost))).toBe(false);
      expect(await port.find(ghost)).toBeNull();
      const { r } = await pending(context);
      await store.users.delete(r.userId);
      expect(await port.find(r.userId)).toBeNull();
    });

    it("enables only with the stored secret, and only a record that is still off", async (context) => {
      const { port, r } = await pending(context);
      expect(await port.acceptStep(r.userId, "another secret", 5, at(1), { enable: true })).toBe(false);
      // A step on a record that is off is not an enable.
      expect(await port.acceptStep(r.userId, r.secret, 5, at(1))).toBe(false);
      expect((await port.find(r.userId))!.enabled).toBe(false);
      expect(await port.acceptStep(r.userId, r.secret, 5, at(1), { enable: true })).toBe(true);
      expect(await port.acceptStep(r.userId, r.secret, 6, at(2), { enable: true })).toBe(false);
      expect(await port.find(r.userId)).toMatchObject({ enabled: true, lastStep: 5 });
    });

    it("accepts a step only above the last one", async (context) => {
      const { port, r } = await enabled(context);
      expect(await port.acceptStep(r.userId, r.secret, 100, at(2))).toBe(false);
      expect(await port.acceptStep(r.userId, r.secret, 99, at(2))).toBe(false);
      expect(await port.acceptStep(r.userId, r.secret, 101, at(2))).toBe(true);
      expect(await port.acceptStep(r.userId, r.secret, 101, at(3))).toBe(false);
      expect(await port.find(r.userId)).toMatchObject({ lastStep: 101, updatedAt: at(2) });
    });

    it("of 10 parallel acceptances of one step exactly one wins", async (context) => {
      const { port, r } = await enabled(context);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => port.acceptStep(r.userId, r.secret, 101, at(2))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await port.find(r.userId))!.lastStep).toBe(101);
    });

    it("of parallel acceptances of two steps, the later step is never refused for the earlier one's sake", async (context) => {
      const { port, r } = await enabled(context);
      const [low, high] = await Promise.all([
        port.acceptStep(r.userId, r.secret, 101, at(2)),
        port.acceptStep(r.userId, r.secret, 102, at(2)),
      ]);
      expect(high).toBe(true);
      expect((await port.find(r.userId))!.lastStep).toBe(102);
      // The earlier step may have won first; after 102 it can never win again.
      expect(typeof low).toBe("boolean");
      expect(await port.acceptStep(r.userId, r.secret, 101, at(3))).toBe(false);
    });

    it("uses a recovery code once: of 10 parallel uses exactly one wins", async (context) => {
      const { port, r } = await enabled(context);
      const [first, second, third] = r.recoveryCodes as [string, string, string];
      const results = await Promise.all(Array.from({ length: 10 }, () => port.useRecoveryCode(r.userId, first, at(3))));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await port.find(r.userId))!.recoveryCodes).toEqual([second, third]);
      expect(await port.useRecoveryCode(r.userId, first, at(4))).toBe(false);
      expect(await port.useRecoveryCode(r.userId, uid("unknown"), at(4))).toBe(false);
    });

    it("parallel uses of different recovery codes all succeed", async (context) => {
      const { port, r } = await enabled(context);
      const results = await Promise.all(r.recoveryCodes.map((hash) => port.useRecoveryCode(r.userId, hash, at(3))));
      expect(results).toEqual([true, true, true]);
      expect((await port.find(r.userId))!.recoveryCodes).toEqual([]);
    });

    it("a pending record's recovery codes cannot be used", async (context) => {
      const { port, r } = await pending(context);
      expect(await port.useRecoveryCode(r.userId, r.recoveryCodes[0]!, at(3))).toBe(false);
      expect(await port.replaceRecoveryCodes(r.userId, ["x"], at(3))).toBe(false);
      expect((await port.find(r.userId))!.recoveryCodes).toEqual(r.recoveryCodes);
    });

    it("replacing recovery codes kills the old ones at once, also for a use racing it", async (context) => {
      const { port, r } = await enabled(context);
      const fresh = [uid("new"), uid("new")];
      const [used, replaced] = await Promise.all([
        port.useRecoveryCode(r.userId, r.recoveryCodes[0]!, at(3)),
        port.replaceRecoveryCodes(r.userId, fresh, at(3)),
      ]);
      expect(replaced).toBe(true);
      expect(typeof used).toBe("boolean");
      // Whatever the order, the new set is whole and no old code works afterwards.
      expect((await port.find(r.userId))!.recoveryCodes).toEqual(fresh);
      for (const old of r.recoveryCodes) expect(await port.useRecoveryCode(r.userId, old, at(4))).toBe(false);
      expect(await port.useRecoveryCode(r.userId, fresh[1]!, at(4))).toBe(true);
    });

    it("distrusts devices and deletes", async (context) => {
      const { port, r } = await enabled(context);
      expect(await port.distrustDevices(r.userId, at(9))).toBe(true);
      expect(await port.find(r.userId)).toMatchObject({ trustedAfter: at(9), updatedAt: at(9) });
      expect(await port.delete(r.userId)).toBe(true);
      expect(await port.delete(r.userId)).toBe(false);
      expect(await port.find(r.userId)).toBeNull();
      expect(await port.distrustDevices(r.userId, at(10))).toBe(false);
    });
  });
}
