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
  });
}
