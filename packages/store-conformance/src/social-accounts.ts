import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, at, socialAccount, uid, user } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `socialAccounts` port (linked provider identities); registered by `runStoreConformance`. */
export function describeSocialAccounts(getStore: () => Store): void {
  describe("socialAccounts", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("links an identity, finds it with its user by (provider, subject) only, and round-trips every field", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const u = user({ emailVerified: true });
      await store.users.create(u, [account(u.id)]);
      const linked = socialAccount(u.id, { refreshTokenExpiresAt: at(86_400_000) });
      expect(await social.link(linked)).toBe("linked");
      const found = await social.findByProviderAccount(linked.providerId, linked.accountId!);
      expect(found?.account).toEqual(linked);
      expect(found?.user).toEqual(u);
      // Another provider with the same subject, or the same provider with another subject, is someone else.
      expect(await social.findByProviderAccount("other-id", linked.accountId!)).toBeNull();
      expect(await social.findByProviderAccount(linked.providerId, uid("sub"))).toBeNull();
      const list = await store.accounts.listByUser(u.id);
      expect(list.map((a) => a.providerId).sort()).toEqual(["credential", "example-id"]);
      expect(list.find((a) => a.providerId === "credential")?.accountId).toBeNull();
    });

    it("one user per provider subject: a second link of the identity is taken, to another user or the same", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const [a, b] = [user(), user()];
      await store.users.create(a, []);
      await store.users.create(b, []);
      const first = socialAccount(a.id);
      expect(await social.link(first)).toBe("linked");
      expect(await social.link(socialAccount(b.id, { accountId: first.accountId }))).toBe("taken");
      expect(await social.link(socialAccount(a.id, { accountId: first.accountId }))).toBe("taken");
      // The same subject at another provider is another identity.
      expect(await social.link(socialAccount(b.id, { providerId: "other-id", accountId: first.accountId }))).toBe(
        "linked",
      );
      expect((await social.findByProviderAccount(first.providerId, first.accountId!))?.user.id).toBe(a.id);
      expect(await store.accounts.listByUser(b.id)).toHaveLength(1);
    });

    it("8 parallel links of one identity to different users: exactly one is linked", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const users = Array.from({ length: 8 }, () => user());
      for (const u of users) await store.users.create(u, []);
      const subject = uid("sub");
      const results = await Promise.all(users.map((u) => social.link(socialAccount(u.id, { accountId: subject }))));
      expect(results.filter((r) => r === "linked")).toHaveLength(1);
      expect(results.filter((r) => r === "taken")).toHaveLength(7);
      let rows = 0;
      for (const u of users) rows += (await store.accounts.listByUser(u.id)).length;
      expect(rows).toBe(1);
    });

    it("link for a user that does not exist writes nothing: owner-gone", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const ghost = socialAccount(uid("u"));
      expect(await social.link(ghost)).toBe("owner-gone");
      expect(await social.findByProviderAccount(ghost.providerId, ghost.accountId!)).toBeNull();
      expect(await store.accounts.listByUser(ghost.userId)).toEqual([]);
    });

    it("updateTokens replaces the tokens of the account and only those fields; null when the account is gone", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const u = user();
      await store.users.create(u, []);
      const linked = socialAccount(u.id);
      await social.link(linked);
      const tokens = {
        accessToken: "v1.aXY.bmV3",
        refreshToken: null,
        idToken: null,
        accessTokenExpiresAt: at(7_200_000),
        refreshTokenExpiresAt: at(9_000_000),
        scope: "openid",
        updatedAt: at(60_000),
      };
      const updated = await social.updateTokens(linked.id, tokens);
      expect(updated).toEqual({ ...linked, ...tokens });
      expect((await social.findByProviderAccount(linked.providerId, linked.accountId!))?.account).toEqual(updated);
      expect(await social.updateTokens(uid("a"), tokens)).toBeNull();
    });

    it("unlink refuses the user's last account, deletes any other, and answers not-found for another user's", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const [u, other] = [user(), user()];
      await store.users.create(u, []);
      await store.users.create(other, []);
      const first = socialAccount(u.id);
      const second = socialAccount(u.id, { providerId: "github" });
      await social.link(first);
      await social.link(second);
      expect(await social.unlink(other.id, first.id)).toBe("not-found");
      expect(await social.unlink(u.id, uid("a"))).toBe("not-found");
      expect(await social.unlink(u.id, first.id)).toBe("unlinked");
      expect(await social.findByProviderAccount(first.providerId, first.accountId!)).toBeNull();
      expect(await social.unlink(u.id, second.id)).toBe("last");
      expect((await store.accounts.listByUser(u.id)).map((a) => a.id)).toEqual([second.id]);
      // A password counts as a way to sign in: with it, the last social account goes.
      await store.accounts.upsertPassword(u.id, account(u.id));
      expect(await social.unlink(u.id, second.id)).toBe("unlinked");
      expect((await store.accounts.listByUser(u.id)).map((a) => a.providerId)).toEqual(["credential"]);
    });

    it("two parallel unlinks of a user's only two accounts: one goes, the user keeps the other", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      for (let round = 0; round < 5; round++) {
        const u = user();
        await store.users.create(u, []);
        const a = socialAccount(u.id);
        const b = socialAccount(u.id, { providerId: "github" });
        await social.link(a);
        await social.link(b);
        const results = await Promise.all([social.unlink(u.id, a.id), social.unlink(u.id, b.id)]);
        // Never both: a store without multi-document transactions may refuse both (then both stay).
        expect(results.filter((r) => r === "unlinked").length).toBeLessThanOrEqual(1);
        expect((await store.accounts.listByUser(u.id)).length).toBe(2 - results.filter((r) => r === "unlinked").length);
      }
    });

    it("a user's deletion takes the linked identities with it: the subject is free again", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const [u, next] = [user(), user()];
      await store.users.create(u, []);
      await store.users.create(next, []);
      const linked = socialAccount(u.id);
      await social.link(linked);
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await social.findByProviderAccount(linked.providerId, linked.accountId!)).toBeNull();
      expect(await social.link(socialAccount(next.id, { accountId: linked.accountId }))).toBe("linked");
    });

    it("users.create writes a social account with the user, and its identity is then taken", async (context) => {
      const social = portOf(store, "socialAccounts", context);
      const u = user({ emailVerified: true });
      const linked = socialAccount(u.id);
      expect((await store.users.create(u, [linked])).ok).toBe(true);
      expect((await social.findByProviderAccount(linked.providerId, linked.accountId!))?.account).toEqual(linked);
      const other = user();
      await store.users.create(other, []);
      expect(await social.link(socialAccount(other.id, { accountId: linked.accountId }))).toBe("taken");
    });
  });
}
