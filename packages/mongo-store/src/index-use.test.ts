// MongoDB uses a partial index only for a query that provably lies inside the index's filter: an equality on
// `previousKeyHash` alone may match a document where the field is null, so without the `$type` clause of the
// index's `partialFilterExpression` the planner cannot use it and scans the collection. No server runs here, so
// these tests check the filters the ports send against `INDEX_SPECS` by the planner's rule.
import { describe, expect, it } from "vitest";
import type { Document } from "mongodb";
import { COLLECTION_NAMES, type Collections } from "./database.ts";
import { INDEX_SPECS } from "./indexes.ts";
import { apiKeysPort } from "./api-keys.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import type { Transactions } from "./connection.ts";

type Seen = { collection: string; filter: Document };

function recording(): { c: Collections; seen: Seen[] } {
  const seen: Seen[] = [];
  const cursor = { limit: () => cursor, sort: () => cursor, toArray: async () => [] };
  const collection = (name: string) =>
    new Proxy(
      {},
      {
        get: (_t, method: string) => (arg: unknown) => {
          if (method === "aggregate") {
            seen.push({ collection: name, filter: (arg as Array<{ $match: Document }>)[0]!.$match });
            return cursor;
          }
          seen.push({ collection: name, filter: arg as Document });
          if (method === "countDocuments") return Promise.resolve(0);
          return method === "find" ? cursor : Promise.resolve(null);
        },
      },
    );
  const c = Object.fromEntries(
    Object.entries(COLLECTION_NAMES).map(([port, name]) => [port, collection(name)]),
  ) as unknown as Collections;
  return { c, seen };
}

/** The indexes a single-clause conjunction (`{ field: {...}, ... }`) may use, by the partial-index rule. */
function usableIndexes(collection: string, clause: Document): string[] {
  return INDEX_SPECS.filter((spec) => {
    if (spec.collection !== collection) return false;
    const [lead] = Object.keys(spec.key);
    if (lead === undefined || !(lead in clause)) return false;
    const partial = spec.partialFilterExpression;
    if (partial === undefined) return true;
    // Every clause of the partial filter must appear in the query, as the same operator and operand.
    return Object.entries(partial).every(([field, condition]) => {
      const asked = clause[field];
      if (condition === null || typeof condition !== "object") return asked === condition;
      return (
        asked !== null &&
        typeof asked === "object" &&
        Object.entries(condition as Document).every(([op, operand]) => (asked as Document)[op] === operand)
      );
    });
  }).map((spec) => spec.name);
}

/** A filter is served by indexes when it, or each branch of its `$or`, can use one. */
function unindexedBranches(collection: string, filter: Document): Document[] {
  const branches = Array.isArray(filter.$or) ? (filter.$or as Document[]) : [filter];
  return branches.filter((b) => usableIndexes(collection, b).length === 0);
}

const noTransactions: Transactions = {
  available: async () => false,
  run: () => Promise.reject(new Error("no transactions")),
};

describe("MongoDB lookups can use their (partial) indexes", () => {
  it("an API-key verify's hash lookup: both branches, the previousKeyHash one with the partial filter's $type", async () => {
    const { c, seen } = recording();
    const keys = apiKeysPort(c);
    await keys.findByHash("h");
    await keys.findByHashWithOwner("h");
    expect(seen).toHaveLength(2);
    for (const { collection, filter } of seen) {
      expect(collection).toBe("api_keys");
      expect(unindexedBranches(collection, filter)).toEqual([]);
      const branches = filter.$or as Document[];
      expect(branches.map((b) => usableIndexes(collection, b))).toEqual([
        ["keyHash_unique"],
        ["previousKeyHash_unique"],
      ]);
    }
  });

  it("an OTP consume or failed attempt by record id uses rid_unique (with its $type)", async () => {
    const { c, seen } = recording();
    const verifications = verificationsPort(c);
    await verifications.consume("v_1");
    await verifications.recordFailedAttempt("v_1", 3);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const { collection, filter } of seen) {
      expect(collection).toBe("verifications");
      const or = (filter.$or as Document[]) ?? [];
      const byRid = or.find((b) => "rid" in b && !("_id" in b));
      expect(byRid && usableIndexes(collection, byRid)).toEqual(["rid_unique"]);
    }
  });

  it("a username lookup uses username_unique", async () => {
    const { c, seen } = recording();
    await usersPort(c, noTransactions).findByUsername("ada");
    expect(usableIndexes("users", seen[0]!.filter)).toEqual(["username_unique"]);
  });

  it("the rule itself refuses an equality without the partial filter's clause (it can fail)", () => {
    expect(usableIndexes("api_keys", { previousKeyHash: { $eq: "h" } })).toEqual([]);
    expect(usableIndexes("verifications", { rid: { $eq: "v" } })).toEqual([]);
    expect(usableIndexes("users", { username: { $eq: "ada" } })).toEqual([]);
    expect(usableIndexes("api_keys", { keyHash: { $eq: "h" } })).toEqual(["keyHash_unique"]);
  });
});
