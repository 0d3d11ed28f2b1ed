import { describe, expect, it } from "vitest";
import { countersPort } from "./counters.ts";
import type { Collections } from "./database.ts";

// `counters.peekMany` without a server (the store conformance suite runs it against MongoDB when MONGODB_URL is
// set): one find over every key, answered in the order asked, null for a key the server did not return.

describe("MongoDB counters.peekMany", () => {
  it("is one find by _id $in the keys and a live window, answered in the order given", async () => {
    const calls: unknown[] = [];
    const docs = [
      { _id: "fail:k", count: 3, resetAt: new Date(90_000) },
      { _id: "lock:k", count: 1, resetAt: new Date(120_000) },
    ];
    const c = {
      counters: {
        find: (filter: unknown) => {
          calls.push(filter);
          return { toArray: async () => docs };
        },
      },
    } as unknown as Collections;
    expect(await countersPort(c).peekMany!(["lock:k", "absent", "fail:k"], 60_000)).toEqual([
      { count: 1, resetAt: 120_000 },
      null,
      { count: 3, resetAt: 90_000 },
    ]);
    expect(calls).toEqual([{ _id: { $in: ["lock:k", "absent", "fail:k"] }, resetAt: { $gt: new Date(60_000) } }]);
  });
});

describe("MongoDB counters.hitGated", () => {
  const collections = (counts: Record<string, number>, calls: string[]) =>
    ({
      counters: {
        findOneAndUpdate: async (filter: { _id: { $eq: string } }) => {
          const id = filter._id.$eq;
          calls.push(id);
          counts[id] = (counts[id] ?? 0) + 1;
          return { _id: id, count: counts[id], resetAt: new Date(120_000) };
        },
      },
    }) as unknown as Collections;

  it("hits the gate, then the next counter only while the gate admits", async () => {
    const calls: string[] = [];
    const counters = countersPort(collections({}, calls));
    const gated = () =>
      counters.hitGated!({ key: "gate", windowMs: 60_000, max: 1 }, { key: "next", windowMs: 900_000 }, 60_000);
    expect(await gated()).toEqual({ gate: { count: 1, resetAt: 120_000 }, next: { count: 1, resetAt: 120_000 } });
    expect(await gated()).toEqual({ gate: { count: 2, resetAt: 120_000 }, next: null });
    expect(calls).toEqual(["gate", "next", "gate"]);
  });
});
