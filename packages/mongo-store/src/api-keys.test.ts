import { describe, expect, it } from "vitest";
import { fixtures } from "@latchkey/store-conformance";
import { apiKeysPort } from "./api-keys.ts";
import { COLLECTION_NAMES, type Collections } from "./database.ts";
import { apiKeyToDoc, userToDoc } from "./documents.ts";

// `findByHashWithOwner` without a server (the store conformance suite runs it against MongoDB when MONGODB_URL is
// set): what it sends is one aggregation, and what it answers follows the joined owner.

const owner = fixtures.user({ email: "ada@example.com" });
const key = fixtures.apiKey(owner.id, { keyHash: "kh_current", previousKeyHash: "kh_old" });

/** An `apiKeys` collection whose one aggregation answers `rows`; every call is recorded. */
function collections(rows: unknown[]): { c: Collections; calls: Array<{ method: string; arg: unknown }> } {
  const calls: Array<{ method: string; arg: unknown }> = [];
  const record = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, method: string) => (arg: unknown) => {
          calls.push({ method: `${name}.${method}`, arg });
          if (method === "aggregate") return { toArray: async () => rows };
          return Promise.resolve(null);
        },
      },
    );
  const c = { apiKeys: record("apiKeys"), users: record("users") } as unknown as Collections;
  return { c, calls };
}

describe("MongoDB apiKeys.findByHashWithOwner", () => {
  it("is one aggregation: the key by either hash, joined with its owner", async () => {
    const { c, calls } = collections([{ ...apiKeyToDoc(key), owner: [userToDoc(owner)] }]);
    expect(await apiKeysPort(c).findByHashWithOwner("kh_old")).toEqual({ key, user: owner });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.method).toBe("apiKeys.aggregate");
    expect(calls[0]?.arg).toEqual([
      { $match: { $or: [{ keyHash: { $eq: "kh_old" } }, { previousKeyHash: { $eq: "kh_old", $type: "string" } }] } },
      { $limit: 1 },
      { $lookup: { from: COLLECTION_NAMES.users, localField: "userId", foreignField: "_id", as: "owner" } },
    ]);
  });

  it("answers null for a key whose owner is gone, and for an unknown hash", async () => {
    expect(
      await apiKeysPort(collections([{ ...apiKeyToDoc(key), owner: [] }]).c).findByHashWithOwner("kh_current"),
    ).toBeNull();
    expect(await apiKeysPort(collections([]).c).findByHashWithOwner("kh_unknown")).toBeNull();
  });
});
