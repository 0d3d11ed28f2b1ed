import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { at, T0, uid, verification } from "./fixtures.ts";

/** Conformance of the `verifications` port; registered by `runStoreConformance`. */
export function describeVerifications(getStore: () => Store): void {
  describe("verifications", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("issue rotates: the earlier row for the identifier is gone", async () => {
      const first = verification();
      await store.verifications.issue(first);
      const second = verification({ identifier: first.identifier });
      await store.verifications.issue(second);
      expect(await store.verifications.findByIdentifier(first.identifier)).toEqual(second);
      expect(await store.verifications.findByValueHash(first.valueHash)).toBeNull();
      expect(await store.verifications.findByValueHash(second.valueHash)).toEqual(second);
    });

    it("30 parallel issues for one identifier all succeed (no duplicate-key error) and leave exactly one live row", async () => {
      const identifier = uid("otp:sign-in:race-");
      const issued = Array.from({ length: 30 }, () => verification({ identifier }));
      const outcomes = await Promise.allSettled(issued.map((v) => store.verifications.issue(v)));
      expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
      const live = await store.verifications.findByIdentifier(identifier);
      expect(issued).toContainEqual(live);
      // Every other secret is dead: of the 30 hashes exactly one still finds a row, the live one.
      const found = await Promise.all(issued.map((v) => store.verifications.findByValueHash(v.valueHash)));
      expect(found.filter((row) => row !== null)).toEqual([live]);
    });

    it("20 parallel consumes of one row: exactly one wins", async () => {
      const v = verification();
      await store.verifications.issue(v);
      const results = await Promise.all(Array.from({ length: 20 }, () => store.verifications.consume(v.id)));
      expect(results.filter((r) => r !== null)).toEqual([v]);
      expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
    });

    it("failed attempts increment atomically and destroy the row at the maximum", async () => {
      const v = verification();
      await store.verifications.issue(v);
      expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 1, destroyed: false });
      expect((await store.verifications.findByIdentifier(v.identifier))!.attemptCount).toBe(1);
      expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 2, destroyed: false });
      expect(await store.verifications.recordFailedAttempt(v.id, 3)).toEqual({ attemptCount: 3, destroyed: true });
      expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
      expect(await store.verifications.recordFailedAttempt(v.id, 3)).toBeNull();
    });

    it("20 parallel failed attempts with max 50 count exactly 20", async () => {
      const v = verification();
      await store.verifications.issue(v);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store.verifications.recordFailedAttempt(v.id, 50)),
      );
      expect(results.map((r) => r!.attemptCount).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect((await store.verifications.findByIdentifier(v.identifier))!.attemptCount).toBe(20);
    });

    it("10 parallel failed attempts with max 3: the row is destroyed exactly once", async () => {
      const v = verification();
      await store.verifications.issue(v);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.verifications.recordFailedAttempt(v.id, 3)),
      );
      expect(results.filter((r) => r?.destroyed)).toHaveLength(1);
      expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
    });

    it("deletes by identifier and expired rows", async () => {
      const v = verification();
      await store.verifications.issue(v);
      expect(await store.verifications.deleteByIdentifier(v.identifier)).toBe(1);
      const old = verification({ expiresAt: at(-1000) });
      const live = verification();
      await store.verifications.issue(old);
      await store.verifications.issue(live);
      expect(await store.verifications.deleteExpired(T0)).toBeGreaterThanOrEqual(1);
      expect(await store.verifications.findByIdentifier(old.identifier)).toBeNull();
      expect(await store.verifications.findByIdentifier(live.identifier)).toEqual(live);
    });

    it("deleteExpired with a limit removes at most that many per call (the sweep's batches)", async () => {
      const ancient = new Date(Date.UTC(2001, 0, 1));
      const old = Array.from({ length: 3 }, () => verification({ expiresAt: ancient }));
      for (const v of old) await store.verifications.issue(v);
      const live = verification();
      await store.verifications.issue(live);
      expect(await store.verifications.deleteExpired(ancient, 2)).toBe(2);
      expect(await store.verifications.deleteExpired(ancient, 2)).toBe(1);
      expect(await store.verifications.deleteExpired(ancient, 2)).toBe(0);
      for (const v of old) expect(await store.verifications.findByIdentifier(v.identifier)).toBeNull();
      expect(await store.verifications.findByIdentifier(live.identifier)).toEqual(live);
    });

    it("keeps userId and payload", async () => {
      const v = verification({ userId: uid("u"), payload: "new@example.com" });
      await store.verifications.issue(v);
      expect(await store.verifications.findByIdentifier(v.identifier)).toEqual(v);
    });
  });
}
