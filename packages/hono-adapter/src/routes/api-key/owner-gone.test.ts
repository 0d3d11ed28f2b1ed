import { describe, expect, it } from "vitest";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

// The owner is deleted between the session check (or the trusted call's user lookup) and the key's insert: what a
// concurrent account deletion does. A trusted call inserts through the store's create (the deletion runs inside
// it, just before the insert); a signed-in caller's key is inserted in a transaction (it commits only while the
// session lives), so the deletion runs just before that transaction begins (from outside it: SQLite's writer lock
// would make a deletion from outside wait for a transaction already open).
function deleteOwnerBeforeInsert(t: ReturnType<typeof setup>["t"], userId: string): () => void {
  const store = t.auth.core.ctx.store;
  const keys = store.apiKeys!;
  const create = keys.create;
  const transaction = store.transaction;
  keys.create = async (key, options) => {
    await t.store.users.delete(userId);
    return create.call(keys, key, options);
  };
  store.transaction = async <T>(body: Parameters<typeof transaction<T>>[0]): Promise<T> => {
    await t.store.users.delete(userId);
    return transaction.call<typeof store, [typeof body], Promise<T>>(store, body);
  };
  return () => {
    keys.create = create;
    store.transaction = transaction;
  };
}

describe("creating an API key while its owner is being deleted", () => {
  it("over HTTP: 401 INVALID_CREDENTIALS on every store, no key row, no event", async () => {
    const { t, events } = setup();
    const { headers, userId } = await signedIn(t);
    await createKey(t, headers);
    const restore = deleteOwnerBeforeInsert(t, userId);
    try {
      const res = await t.request("POST", "/api-key/create", { body: { name: "late" }, headers });
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe("INVALID_CREDENTIALS");
    } finally {
      restore();
    }
    expect(await t.store.users.findById(userId)).toBeNull();
    expect((await t.store.apiKeys!.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toHaveLength(1);
  });

  it("through auth.api: NOT_FOUND, as for a user that never existed", async () => {
    const { t } = setup();
    const { userId } = await signedIn(t);
    const restore = deleteOwnerBeforeInsert(t, userId);
    try {
      await expect(t.auth.api.createApiKey({ userId, name: "late" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    } finally {
      restore();
    }
    expect((await t.store.apiKeys!.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
  });
});
