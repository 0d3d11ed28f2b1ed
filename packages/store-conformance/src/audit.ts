import { beforeAll, describe, expect, it } from "vitest";
import type { StoreWith } from "./conformance.ts";
import { at, uid } from "./fixtures.ts";

/** Conformance of the `audit` port; registered by `runStoreConformance`. */
export function describeAudit(getStore: () => StoreWith<"audit">): void {
  describe("audit", () => {
    let store: StoreWith<"audit">;
    beforeAll(() => {
      store = getStore();
    });

    it("appends and lists newest first with keyset pagination, filtered by user", async () => {
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
      for (const r of rows) await store.audit.append(r);
      await store.audit.append({ ...rows[0]!, id: uid("au"), userId: uid("other") });
      const first = await store.audit.list({ userId, limit: 2, cursor: null });
      expect(first.items).toEqual([rows[2], rows[1]]);
      const second = await store.audit.list({ userId, limit: 2, cursor: first.nextCursor });
      expect(second.items).toEqual([rows[0]]);
      expect(second.nextCursor).toBeNull();
      expect((await store.audit.list({ userId: null, limit: 100, cursor: null })).items.length).toBeGreaterThanOrEqual(
        4,
      );
    });
  });
}
