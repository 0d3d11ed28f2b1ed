import type { CounterStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { counterFromDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";
import { counterHitUpdate, deleteMatching } from "./queries.ts";

/** Runs an upsert once more when it lost the insert race on `_id` to a concurrent upsert of the same key. */
async function upsertWithRetry<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateOn(error, "_id")) throw error;
    return write();
  }
}

/** `CounterStore` over MongoDB: every hit is one atomic findOneAndUpdate upsert with the window logic in a pipeline. */
export function countersPort(c: Collections): CounterStore {
  const hit = async (key: string, windowMs: number, now: number) => {
    // One atomic read-modify-write on the server: the pipeline decides between counting up and restarting.
    const doc = await upsertWithRetry(() =>
      c.counters.findOneAndUpdate({ _id: { $eq: key } }, counterHitUpdate(windowMs, now), {
        upsert: true,
        returnDocument: "after",
      }),
    );
    if (!doc) throw new Error(`mongodb: counter upsert for ${key} returned no document`);
    return counterFromDoc(doc);
  };
  return {
    hit,
    // Two atomic upserts (MongoDB writes two documents atomically only in a transaction, which would cost more
    // round trips than it saves): the next counter is hit only after the gate's own hit admitted it, so racing
    // calls stay exact, as with the two calls a store without hitGated gets.
    async hitGated(gate, next, now) {
      const gated = await hit(gate.key, gate.windowMs, now);
      return { gate: gated, next: gated.count <= gate.max ? await hit(next.key, next.windowMs, now) : null };
    },
    async peek(key, now) {
      const doc = await c.counters.findOne({ _id: { $eq: key }, resetAt: { $gt: new Date(now) } });
      return doc ? counterFromDoc(doc) : null;
    },
    async peekMany(keys, now) {
      const docs = await c.counters.find({ _id: { $in: [...keys] }, resetAt: { $gt: new Date(now) } }).toArray();
      const byKey = new Map(docs.map((doc) => [doc._id, counterFromDoc(doc)]));
      return keys.map((key) => byKey.get(key) ?? null);
    },
    async delete(key) {
      await c.counters.deleteOne({ _id: { $eq: key } });
    },
    async rename(from, to) {
      const moved = await c.counters.findOneAndDelete({ _id: { $eq: from } });
      if (!moved) {
        await c.counters.deleteOne({ _id: { $eq: to } });
        return;
      }
      await upsertWithRetry(() =>
        c.counters.replaceOne({ _id: { $eq: to } }, { count: moved.count, resetAt: moved.resetAt }, { upsert: true }),
      );
    },
    async deleteExpired(now, limit) {
      return deleteMatching(c.counters, { resetAt: { $lte: new Date(now) } }, limit);
    },
  };
}
