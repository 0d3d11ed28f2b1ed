// The MongoDB server suite needs MONGODB_URL; these tests check, through collections that record each call,
// the shape of the writes issue 33 item 10 asks for: one upsert per verification issue, one deleteMany per sweep.
import { describe, expect, it } from "vitest";
import { fixtures } from "@latchkey/store-conformance";
import type { Collections } from "./database.ts";
import { apiKeysPort } from "./api-keys.ts";
import { verificationsPort } from "./verifications.ts";
import { verificationToDoc } from "./documents.ts";

type Call = { method: string; args: unknown[] };

/** A collection whose every method records its call and answers from `answers` (or undefined). */
function recording(answers: Record<string, (...args: unknown[]) => unknown> = {}) {
  const calls: Call[] = [];
  const collection = new Proxy(
    {},
    {
      get: (_, method: string) => {
        const call = (...args: unknown[]) => {
          calls.push({ method, args });
          const answer = answers[method];
          return answer ? answer(...args) : undefined;
        };
        // `find` returns a cursor synchronously; every other method is a promise.
        return method === "find" ? call : async (...args: unknown[]) => call(...args);
      },
    },
  );
  return { calls, collection };
}

const collections = (over: Partial<Record<keyof Collections, unknown>>) => over as unknown as Collections;

describe("MongoDB verifications.issue", () => {
  it("is one atomic upsert keyed by the identifier ($eq), never a delete-then-insert", async () => {
    const { calls, collection } = recording({ updateOne: () => ({ upsertedCount: 1 }) });
    const v = fixtures.verification();
    await verificationsPort(collections({ verifications: collection })).issue(v);
    const { _id, identifier, ...fields } = verificationToDoc(v);
    expect(calls).toEqual([
      {
        method: "updateOne",
        args: [{ identifier: { $eq: identifier } }, { $set: fields, $setOnInsert: { _id } }, { upsert: true }],
      },
    ]);
  });

  it("a duplicate-key race between two first issues is settled by repeating the upsert once (then an update)", async () => {
    let first = true;
    const duplicate = Object.assign(new Error("E11000 duplicate key"), { code: 11000, keyPattern: { identifier: 1 } });
    const { calls, collection } = recording({
      updateOne: () => {
        if (first) {
          first = false;
          throw duplicate;
        }
        return { matchedCount: 1 };
      },
    });
    await verificationsPort(collections({ verifications: collection })).issue(fixtures.verification());
    expect(calls.map((c) => c.method)).toEqual(["updateOne", "updateOne"]);
  });
});

describe("MongoDB apiKeys.deleteExpired", () => {
  it("deletes every expired key with one deleteMany, whatever their number, and reports each deleted key", async () => {
    const expired = Array.from({ length: 250 }, (_, i) => ({ _id: `k_${i}`, userId: `u_${i % 3}` }));
    const { calls, collection } = recording({
      find: () => ({ toArray: async () => (calls.filter((c) => c.method === "find").length === 1 ? expired : []) }),
      deleteMany: () => ({ deletedCount: expired.length }),
    });
    const now = fixtures.at(0);
    const gone = await apiKeysPort(collections({ apiKeys: collection })).deleteExpired(now, null);
    expect(calls.filter((c) => c.method === "deleteMany")).toHaveLength(1);
    expect(calls.some((c) => ["findOneAndDelete", "deleteOne"].includes(c.method))).toBe(false);
    expect(calls.find((c) => c.method === "deleteMany")!.args[0]).toEqual({
      expiresAt: { $lte: now },
      _id: { $in: expired.map((k) => k._id) },
    });
    expect(gone).toEqual(expired.map((k) => ({ id: k._id, userId: k.userId })));
    // The candidates' read and one deleteMany: nothing is read back when every candidate went.
    expect(calls.map((c) => c.method)).toEqual(["find", "deleteMany"]);
  });

  it("reads back which candidates stayed only when the deleteMany removed fewer (a key extended meanwhile)", async () => {
    const expired = [
      { _id: "k_0", userId: "u" },
      { _id: "k_1", userId: "u" },
    ];
    let finds = 0;
    const { calls, collection } = recording({
      find: () => ({ toArray: async () => (++finds === 1 ? expired : [{ _id: "k_1" }]) }),
      deleteMany: () => ({ deletedCount: 1 }),
    });
    const gone = await apiKeysPort(collections({ apiKeys: collection })).deleteExpired(fixtures.at(0), null);
    expect(calls.map((c) => c.method)).toEqual(["find", "deleteMany", "find"]);
    expect(gone).toEqual([{ id: "k_0", userId: "u" }]);
  });
});

describe("MongoDB API-key sweeps with a limit (the sweep's batches)", () => {
  it("deleteExpired reads at most `limit` candidates and deletes only those, with the expiry repeated", async () => {
    const batch = Array.from({ length: 3 }, (_, i) => ({ _id: `k_${i}`, userId: "u" }));
    const limits: number[] = [];
    const { calls, collection } = recording({
      find: () => ({
        limit: (n: number) => {
          limits.push(n);
          return { toArray: async () => batch };
        },
        toArray: async () => [],
      }),
      deleteMany: () => ({ deletedCount: batch.length }),
    });
    const now = fixtures.at(0);
    const gone = await apiKeysPort(collections({ apiKeys: collection })).deleteExpired(now, null, 3);
    expect(limits).toEqual([3]);
    expect(calls.find((c) => c.method === "deleteMany")!.args[0]).toEqual({
      expiresAt: { $lte: now },
      _id: { $in: batch.map((k) => k._id) },
    });
    expect(gone).toEqual(batch.map((k) => ({ id: k._id, userId: k.userId })));
  });

  it("deleteExpiredRerolls clears at most `limit` keys: their ids, with the end of grace repeated", async () => {
    const batch = [{ _id: "k_0" }, { _id: "k_1" }];
    const limits: number[] = [];
    const { calls, collection } = recording({
      find: () => ({
        limit: (n: number) => {
          limits.push(n);
          return { toArray: async () => batch };
        },
      }),
      updateMany: () => ({ modifiedCount: batch.length }),
    });
    const now = fixtures.at(0);
    expect(await apiKeysPort(collections({ apiKeys: collection })).deleteExpiredRerolls(now, 2)).toBe(2);
    expect(limits).toEqual([2]);
    expect(calls.find((c) => c.method === "updateMany")!.args[0]).toEqual({
      previousKeyExpiresAt: { $lte: now },
      _id: { $in: ["k_0", "k_1"] },
    });
  });
});
