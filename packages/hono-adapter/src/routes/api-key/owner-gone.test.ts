import { describe, expect, it } from "vitest";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

// The owner is deleted between the session check (or the trusted call's user lookup) and the key's insert, by
// running the deletion inside the store's create, just before the insert: what a concurrent account deletion does.
function deleteOwnerBeforeInsert(t: ReturnType<typeof setup>["t"], userId: string): () => void {
  const keys = t.auth.core.ctx.store.apiKeys!;
  const create = keys.create;
  keys.create = async (key, options) => {
    await t.store.users.delete(userId);
    return create.call(keys, key, options);
  };
  return () => {
    keys.create = create;
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
