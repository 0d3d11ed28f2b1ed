import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { at, uid } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `audit` port; registered by `runStoreConformance`. */
export function describeAudit(getStore: () => Store): void {
  describe("audit", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("appends and lists newest first with keyset pagination, filtered by user", async (context) => {
      const audit = portOf(store, "audit", context);
      const userId = uid("u");
      const rows = Array.from({ length: 3 }, (_, i) => ({
        id: uid("au"),
        type: "UserSignedIn",
        userId,
        identifier: null,
        ip: "198.51.100.1",
        userAgent: "ua",
        at: at(i * 1000),
        data: { method: "password", i },
      }));
      for (const r of rows) await audit.append(r);
      await audit.append({ ...rows[0]!, id: uid("au"), userId: uid("other") });
      const first = await audit.list({ userId, limit: 2, cursor: null });
      expect(first.items).toEqual([rows[2], rows[1]]);
      const second = await audit.list({ userId, limit: 2, cursor: first.nextCursor });
      expect(second.items).toEqual([rows[0]]);
      expect(second.nextCursor).toBeNull();
      expect((await audit.list({ userId: null, limit: 100, cursor: null })).items.length).toBeGreaterThanOrEqual(4);
    });

    it("deleteBefore removes rows older than the cut-off, at most `limit` per call, and keeps newer ones", async (context) => {
      const audit = portOf(store, "audit", context);
      const userId = uid("u");
      const ancient = Date.UTC(2001, 0, 1);
      const row = (ms: number) => ({
        id: uid("au"),
        type: "SignInFailed",
        userId,
        identifier: null,
        ip: null,
        userAgent: null,
        at: new Date(ancient + ms),
        data: {},
      });
      const old = [row(0), row(1000), row(2000)];
      const kept = row(5000);
      for (const r of [...old, kept]) await audit.append(r);
      const cutOff = new Date(ancient + 5000);
      expect(await audit.deleteBefore(cutOff, 2)).toBe(2);
      expect(await audit.deleteBefore(cutOff, 2)).toBe(1);
      expect(await audit.deleteBefore(cutOff, 2)).toBe(0);
      expect((await audit.list({ userId, limit: 10, cursor: null })).items).toEqual([kept]);
    });
  });
}
