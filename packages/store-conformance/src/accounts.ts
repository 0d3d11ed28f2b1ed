import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, user } from "./fixtures.ts";

/** Conformance of the `accounts` port; registered by `runStoreConformance`. */
export function describeAccounts(getStore: () => Store): void {
  describe("accounts", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("creates, upserts the password, sets it only when absent, and prunes other providers", async () => {
      const u = user();
      await store.users.create(u, [account(u.id, { providerId: "EMAIL_OTP", passwordHash: null })]);
      expect(await store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: "h1" }))).toBe(true);
      expect(await store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: "h2" }))).toBe(false);
      let list = await store.accounts.listByUser(u.id);
      expect(list.find((a) => a.providerId === "credential")!.passwordHash).toBe("h1");
      await store.accounts.upsertPassword(u.id, account(u.id, { passwordHash: "h3" }));
      list = await store.accounts.listByUser(u.id);
      expect(list.filter((a) => a.providerId === "credential")).toHaveLength(1);
      expect(list.find((a) => a.providerId === "credential")!.passwordHash).toBe("h3");
      await store.accounts.create(account(u.id, { providerId: "github", passwordHash: null }));
      expect(await store.accounts.deleteAllExcept(u.id, "EMAIL_OTP")).toBe(2);
      list = await store.accounts.listByUser(u.id);
      expect(list.map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
    });

    it("upsertPassword creates the credential account when missing", async () => {
      const u = user();
      await store.users.create(u, []);
      await store.accounts.upsertPassword(u.id, account(u.id, { passwordHash: "h" }));
      expect((await store.accounts.listByUser(u.id)).map((a) => a.passwordHash)).toEqual(["h"]);
    });

    it("10 parallel setPasswordIfAbsent: exactly one wins", async () => {
      const u = user();
      await store.users.create(u, []);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.accounts.setPasswordIfAbsent(u.id, account(u.id, { passwordHash: `h${i}` })),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.accounts.listByUser(u.id)).filter((a) => a.providerId === "credential")).toHaveLength(1);
    });
  });
}
