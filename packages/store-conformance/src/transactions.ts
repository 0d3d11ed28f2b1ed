import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, session, user } from "./fixtures.ts";

/** Conformance of `transaction` and `ping`; registered by `runStoreConformance`. */
export function describeTransactions(getStore: () => Store): void {
  describe("transaction and ping", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("ping answers", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it("commits every write of the body and returns its value", async () => {
      const u = user();
      const s = session(u.id);
      const value = await store.transaction(async (tx) => {
        expect((await tx.users.create(u, [account(u.id)])).ok).toBe(true);
        await tx.sessions.create(s);
        // Reads in the body see its own writes.
        expect((await tx.users.findByEmail(u.email))?.id).toBe(u.id);
        return "done";
      });
      expect(value).toBe("done");
      expect((await store.users.findById(u.id))?.email).toBe(u.email);
      expect((await store.sessions.findByTokenHash(s.tokenHash))?.session.id).toBe(s.id);
      expect(await store.accounts.listByUser(u.id)).toHaveLength(1);
    });

    it("a throw at any point leaves none of the body's writes", async () => {
      for (const failAt of ["after-user", "after-session", "after-update"] as const) {
        const u = user();
        const s = session(u.id);
        const boom = new Error(`injected ${failAt}`);
        await expect(
          store.transaction(async (tx) => {
            await tx.users.create(u, [account(u.id)]);
            if (failAt === "after-user") throw boom;
            await tx.sessions.create(s);
            if (failAt === "after-session") throw boom;
            await tx.users.update(u.id, { name: "changed" });
            throw boom;
          }),
        ).rejects.toBe(boom);
        expect(await store.users.findById(u.id)).toBeNull();
        expect(await store.users.findByEmail(u.email)).toBeNull();
        expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
        expect(await store.accounts.listByUser(u.id)).toEqual([]);
      }
    });

    it("a unique conflict inside the body can be handled there without aborting the rest", async () => {
      const first = user();
      await store.users.create(first, []);
      const clash = user({ email: first.email });
      const other = user();
      await store.transaction(async (tx) => {
        expect(await tx.users.create(clash, [])).toEqual({ ok: false, conflict: "email" });
        expect((await tx.users.create(other, [])).ok).toBe(true);
      });
      expect(await store.users.findById(other.id)).not.toBeNull();
    });
  });
}
