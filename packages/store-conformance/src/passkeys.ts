import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, at, passkey, uid, user } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `passkeys` port (WebAuthn credentials); registered by `runStoreConformance`. */
export function describePasskeys(getStore: () => Store): void {
  describe("passkeys", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("inserts, lists by user (oldest first) and finds by credential id, round-tripping every field", async (context) => {
      const port = portOf(store, "passkeys", context);
      const u = user();
      await store.users.create(u, [account(u.id)]);
      const first = passkey(u.id, { counter: 4_000_000_000, backedUp: true, deviceType: "multiDevice", name: "Phone" });
      const second = passkey(u.id, { createdAt: at(1_000), lastUsedAt: at(2_000), transports: [] });
      expect(await port.insert(second)).toBe("inserted");
      expect(await port.insert(first)).toBe("inserted");
      expect(await port.listByUser(u.id)).toEqual([first, second]);
      expect(await port.findByCredentialId(first.credentialId)).toEqual(first);
      expect(await port.findByCredentialId(uid("cred"))).toBeNull();
      expect(await port.listByUser(uid("u"))).toEqual([]);
    });

    it("a credential id belongs to one passkey: 8 parallel inserts of it (different users) give one", async (context) => {
      const port = portOf(store, "passkeys", context);
      const users = Array.from({ length: 8 }, () => user());
      for (const u of users) await store.users.create(u, []);
      const credentialId = uid("cred");
      const results = await Promise.all(users.map((u) => port.insert(passkey(u.id, { credentialId }))));
      expect(results.filter((r) => r === "inserted")).toHaveLength(1);
      expect(results.filter((r) => r === "taken")).toHaveLength(7);
      const owner = (await port.findByCredentialId(credentialId))!.userId;
      for (const u of users) expect(await port.listByUser(u.id)).toHaveLength(u.id === owner ? 1 : 0);
    });

    it("insert for a user that does not exist writes nothing: owner-gone", async (context) => {
      const port = portOf(store, "passkeys", context);
      const ghost = passkey(uid("u"));
      expect(await port.insert(ghost)).toBe("owner-gone");
      expect(await port.findByCredentialId(ghost.credentialId)).toBeNull();
    });

    it("rename: only the owner's passkey; null otherwise", async (context) => {
      const port = portOf(store, "passkeys", context);
      const [a, b] = [user(), user()];
      await store.users.create(a, []);
      await store.users.create(b, []);
      const p = passkey(a.id);
      await port.insert(p);
      expect(await port.rename(a.id, p.id, "YubiKey")).toEqual({ ...p, name: "YubiKey" });
      expect(await port.rename(b.id, p.id, "mine")).toBeNull();
      expect(await port.rename(a.id, uid("pk"), "none")).toBeNull();
      expect((await port.findByCredentialId(p.credentialId))?.name).toBe("YubiKey");
    });

    it("recordUse is a compare-and-set: of 8 parallel uses that read the same counter, one advances it", async (context) => {
      const port = portOf(store, "passkeys", context);
      const u = user();
      await store.users.create(u, []);
      const p = passkey(u.id, { counter: 5 });
      await port.insert(p);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => port.recordUse(p.id, 5, 6 + i, i % 2 === 0, at(i))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await port.findByCredentialId(p.credentialId)).toEqual({
        ...p,
        counter: 6 + winner,
        backedUp: winner % 2 === 0,
        lastUsedAt: at(winner),
      });
      // A stale expected counter changes nothing; neither does a passkey that is gone.
      expect(await port.recordUse(p.id, 5, 100, false, at(9))).toBe(false);
      expect(await port.recordUse(uid("pk"), 0, 1, false, at(9))).toBe(false);
      // Counters of 0 (authenticators that keep none): every use succeeds.
      const synced = passkey(u.id);
      await port.insert(synced);
      expect(await port.recordUse(synced.id, 0, 0, true, at(1))).toBe(true);
      expect(await port.recordUse(synced.id, 0, 0, true, at(2))).toBe(true);
    });

    it("delete: the owner's only; never the last way to sign in, decided atomically for two at once", async (context) => {
      const port = portOf(store, "passkeys", context);
      const withPassword = user();
      await store.users.create(withPassword, [account(withPassword.id)]);
      const only = passkey(withPassword.id);
      await port.insert(only);
      const stranger = user();
      await store.users.create(stranger, []);
      expect(await port.delete(stranger.id, only.id)).toBe("not-found");
      // A password is another way to sign in: the only passkey can go.
      expect(await port.delete(withPassword.id, only.id)).toBe("deleted");
      expect(await port.delete(withPassword.id, only.id)).toBe("not-found");

      const passkeyOnly = user();
      await store.users.create(passkeyOnly, []);
      const [p1, p2] = [passkey(passkeyOnly.id), passkey(passkeyOnly.id)];
      await port.insert(p1);
      await port.insert(p2);
      const results = await Promise.all([port.delete(passkeyOnly.id, p1.id), port.delete(passkeyOnly.id, p2.id)]);
      expect(results.sort()).toEqual(["deleted", "last"]);
      expect(await port.listByUser(passkeyOnly.id)).toHaveLength(1);
    });

    it("delete with evenLast removes the last way to sign in, and only that user's passkey", async (context) => {
      const port = portOf(store, "passkeys", context);
      const [owner, other] = [user(), user()];
      await store.users.create(owner, []);
      await store.users.create(other, []);
      const only = passkey(owner.id);
      await port.insert(only);
      expect(await port.delete(owner.id, only.id)).toBe("last");
      expect(await port.delete(other.id, only.id, { evenLast: true })).toBe("not-found");
      expect(await port.listByUser(owner.id)).toEqual([only]);
      expect(await port.delete(owner.id, only.id, { evenLast: true })).toBe("deleted");
      expect(await port.listByUser(owner.id)).toEqual([]);
      expect(await port.delete(owner.id, only.id, { evenLast: true })).toBe("not-found");
    });

    it("deleteAllByUser removes every passkey of the user, the last way to sign in included, and no other's", async (context) => {
      const port = portOf(store, "passkeys", context);
      const [owner, other] = [user(), user()];
      await store.users.create(owner, []);
      await store.users.create(other, []);
      const mine = [passkey(owner.id), passkey(owner.id)];
      for (const p of mine) await port.insert(p);
      const theirs = passkey(other.id);
      await port.insert(theirs);
      expect((await port.deleteAllByUser(owner.id)).sort()).toEqual(mine.map((p) => p.id).sort());
      expect(await port.listByUser(owner.id)).toEqual([]);
      expect(await port.findByCredentialId(mine[0]!.credentialId)).toBeNull();
      expect(await port.listByUser(other.id)).toEqual([theirs]);
      expect(await port.deleteAllByUser(owner.id)).toEqual([]);
    });

    it("deleting the user deletes their passkeys (no passkey of a deleted user)", async (context) => {
      const port = portOf(store, "passkeys", context);
      const u = user();
      await store.users.create(u, []);
      const p = passkey(u.id);
      await port.insert(p);
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await port.listByUser(u.id)).toEqual([]);
      expect(await port.findByCredentialId(p.credentialId)).toBeNull();
      // The credential id is free again.
      const v = user();
      await store.users.create(v, []);
      expect(await port.insert(passkey(v.id, { credentialId: p.credentialId }))).toBe("inserted");
    });
  });
}
