import type { Collection, Document, Filter } from "mongodb";
import { apiKeyUseRule, type ApiKeyUseRule } from "@latchkey/core/internal";
import { STORE_CLOCK_LEAD_MS } from "@latchkey/core";
import type { ApiKeyDoc, VerificationDoc } from "./documents.ts";

// Pure builders for the filters and update pipelines whose shape carries the atomicity. Values are only numbers
// and Dates, never caller strings: in a pipeline a string starting with "$" would be read as a field path.

/**
 * Update pipeline for `counters.hit`: one atomic upsert. A window still running (`resetAt > now`) counts up;
 * an ended or missing one (a missing field sorts below any date) restarts at 1 with `resetAt = now + windowMs`.
 * Every expression in one `$set` stage sees the document as it was before the update.
 */
export function counterHitUpdate(windowMs: number, now: number): Document[] {
  const running = { $gt: ["$resetAt", new Date(now)] };
  return [
    {
      $set: {
        count: { $cond: [running, { $add: ["$count", 1] }, 1] },
        resetAt: { $cond: [running, "$resetAt", new Date(now + windowMs)] },
      },
    },
  ];
}

/** Aggregation expressions are documents (or field paths and literals) for booleans, numbers and instants alike. */
interface MongoRepr {
  bool: Document;
  num: Document | string;
  time: Document | string | Date;
}

type Operand = MongoRepr["num"] | MongoRepr["time"];
// `$ifNull` and `$cond` answer with one of their operands: the result has the operands' kind.
const sameKind = <T extends Operand>(expression: Document): T => expression as unknown as T;

/**
 * Core's API-key use rule (`apiKeyUseRule`) as MongoDB aggregation expressions. Field paths are only the key's
 * own field names (from core's typed list), constants are `$literal`s and `now` is a Date: no caller string can
 * be read as a path. A missing field counts as null (`$ifNull`), as a null one does.
 *
 * @example
 * const rule = mongoApiKeyUseRule(new Date()); // { _id, $expr: rule.allowed } and [{ $set: rule.set }]
 */
export function mongoApiKeyUseRule(now: Date): ApiKeyUseRule<MongoRepr> {
  // The caller's instant, bounded by the server's clock (`$$NOW`; see boundByStoreClock in @latchkey/core).
  const bounded = { $min: [now, { $add: ["$$NOW", STORE_CLOCK_LEAD_MS] }] };
  return apiKeyUseRule<MongoRepr>({
    num: (name) => `$${name}`,
    time: (name) => `$${name}`,
    enabled: () => ({ $eq: ["$enabled", true] }),
    now: () => bounded,
    int: (value) => ({ $literal: value }),
    isNull: (value) => ({ $eq: [{ $ifNull: [value, null] }, null] }),
    and: (...terms) => ({ $and: terms }),
    or: (...terms) => ({ $or: terms }),
    not: (term) => ({ $not: [term] }),
    lte: (left, right) => ({ $lte: [left, right] }),
    lt: (left, right) => ({ $lt: [left, right] }),
    add: (left, right) => ({ $add: [left, right] }),
    sub: (left, right) => ({ $subtract: [left, right] }),
    // A date plus a number of milliseconds is a date.
    addMs: (instant, ms) => ({ $add: [instant, ms] }),
    coalesce: <T extends Operand>(value: T, fallback: T) => sameKind<T>({ $ifNull: [value, fallback] }),
    when: <T extends Operand>(test: Document, then: T, otherwise: T) => sameKind<T>({ $cond: [test, then, otherwise] }),
  });
}

/**
 * Filter for `apiKeys.consumeUse`: the key `id`, matched only when core's use rule admits a use at `now`
 * (enabled, unexpired, with uses left or a refill due, under its per-key window limit).
 */
export function apiKeyUseFilter(id: string, now: Date): Filter<ApiKeyDoc> {
  return { _id: { $eq: id }, $expr: mongoApiKeyUseRule(now).allowed };
}

/**
 * Update pipeline for `apiKeys.consumeUse`, applied only to a key `apiKeyUseFilter` matched: the columns core's use
 * rule writes, in one `$set` stage (every expression reads the document from before the update). One document
 * update is atomic, so two uses at the refill instant refill once: the second sees the first one's `lastRefillAt`.
 */
export function apiKeyUseUpdate(now: Date): Document[] {
  return [{ $set: mongoApiKeyUseRule(now).set }];
}

/**
 * Update pipeline for `apiKeys.reroll`: the current hash becomes the previous one (or is dropped without a grace)
 * and the new value's hash takes its place, in one document update (at most two values ever verify). The new
 * hash and start are wrapped in `$literal` so no value is ever read as a field path.
 */
export function apiKeyRerollUpdate(r: {
  keyHash: string;
  start: string;
  graceUntil: Date | null;
  at: Date;
}): Document[] {
  return [
    {
      $set: {
        previousKeyHash: r.graceUntil === null ? null : "$keyHash",
        previousKeyExpiresAt: r.graceUntil,
        keyHash: { $literal: r.keyHash },
        start: { $literal: r.start },
        rerolledAt: r.at,
        updatedAt: r.at,
      },
    },
  ];
}

/**
 * The two conditional writes of `verifications.recordFailedAttempt`: `destroy` matches the row whose next failure
 * reaches `maxAttempts` (it is deleted), `increment` matches a row that stays below it (`$inc`). A row matches
 * at most one of them, so each failure is counted exactly once and exactly one caller destroys the row.
 */
export function failedAttemptFilters(
  id: string,
  maxAttempts: number,
): { destroy: Filter<VerificationDoc>; increment: Filter<VerificationDoc> } {
  return {
    destroy: { ...verificationById(id), attemptCount: { $gte: maxAttempts - 1 } },
    increment: { ...verificationById(id), attemptCount: { $lt: maxAttempts - 1 } },
  };
}

/** Matches the verification row whose record id is `id` (its `rid`, or `_id` for a row written before `rid`). */
export function verificationById(id: string): Filter<VerificationDoc> {
  // `$type` repeats the partial filter of `rid_unique`: without it the planner cannot prove an equality match
  // lies inside the partial index and scans the collection.
  return { $or: [{ rid: { $eq: id, $type: "string" } }, { _id: { $eq: id }, rid: { $exists: false } }] };
}

/**
 * Matches the API key whose current or replaced value has this hash. The `previousKeyHash` branch repeats the
 * partial filter of `previousKeyHash_unique` (`$type: "string"`), so both branches of the `$or` use an index.
 */
export function apiKeyHashFilter(keyHash: string): Filter<ApiKeyDoc> {
  return { $or: [{ keyHash: { $eq: keyHash } }, { previousKeyHash: { $eq: keyHash, $type: "string" } }] };
}

/**
 * `verifications.issue` as one atomic upsert on the unique identifier: the identifier's row (if any) takes the new
 * code's fields and record id (`rid`) in place, else a row is inserted. There is never a moment without a row or
 * with two, and concurrent issues serialise on the document (the one that writes last survives).
 */
export function verificationIssueUpsert(doc: VerificationDoc): {
  filter: Filter<VerificationDoc>;
  update: Document;
} {
  const { _id, identifier, ...fields } = doc;
  return {
    filter: { identifier: { $eq: identifier } },
    update: { $set: fields, $setOnInsert: { _id } },
  };
}

/** Opaque keyset cursor: the last item's time (ms) and id. */
export function encodeCursor(at: Date, id: string): string {
  return `${at.getTime()}:${id}`;
}

/** Parses a cursor made by `encodeCursor`; null when it is not one (callers answer with an empty page). */
export function decodeCursor(cursor: string): { at: Date; id: string } | null {
  const match = /^(\d{1,15}):(.+)$/s.exec(cursor);
  if (!match?.[1] || match[2] === undefined) return null;
  return { at: new Date(Number(match[1])), id: match[2] };
}

/**
 * Filter for the page after `cursor` in newest-first order by (`field`, `_id`): strictly older, or the same
 * time with a smaller id. An empty filter for the first page; null for a malformed cursor.
 */
export function keysetFilter(field: string, cursor: string | null): Document | null {
  if (cursor === null) return {};
  const after = decodeCursor(cursor);
  if (after === null) return null;
  return { $or: [{ [field]: { $lt: after.at } }, { [field]: after.at, _id: { $lt: after.id } }] };
}

/**
 * Deletes the documents matching `filter`, at most `limit` of them when given (the sweep's batches): the ids of one
 * batch are read, then deleted with the filter repeated, so a document that changed in between stays.
 */
export async function deleteMatching<D extends { _id: string }>(
  collection: Collection<D>,
  filter: Filter<D>,
  limit: number | undefined,
): Promise<number> {
  if (limit === undefined) return (await collection.deleteMany(filter)).deletedCount;
  const ids = (
    await collection
      .find(filter, { projection: { _id: 1 } })
      .limit(limit)
      .toArray()
  ).map((d) => d._id);
  if (ids.length === 0) return 0;
  const batch = { $and: [{ _id: { $in: ids } }, filter] } as Filter<D>;
  return (await collection.deleteMany(batch)).deletedCount;
}
