import { describe, expect, it } from "vitest";
import type { Collections } from "./database.ts";
import type { Transactions } from "./connection.ts";
import { auditPort } from "./audit.ts";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { countersPort } from "./counters.ts";
import { sessionsPort } from "./sessions.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";

// The second wall behind auth.api's input checks: every filter value a caller supplies reaches MongoDB as
// `{ $eq: value }`, so even an object that slipped through would be compared, not run as a query operator.
// Recorded through fake collections (no server), so this runs on every machine.

type Recorded = { collection: string; method: string; filter: unknown };

function recordingCollections(): { c: Collections; seen: Recorded[] } {
  const seen: Recorded[] = [];
  const cursor = { sort: () => cursor, limit: () => cursor, toArray: async () => [] };
  const collection = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, method: string) => (filter: unknown) => {
          if (method === "aggregate") {
            seen.push({ collection: name, method, filter: (filter as Array<{ $match?: unknown }>)[0]?.$match });
            return cursor;
          }
          seen.push({ collection: name, method, filter });
          if (method === "find") return cursor;
          if (method.startsWith("delete")) return Promise.resolve({ deletedCount: 0 });
          if (method === "countDocuments") return Promise.resolve(0);
          return Promise.resolve(null);
        },
      },
    );
  const c = Object.fromEntries(
    ["users", "sessions", "accounts", "verifications", "counters", "apiKeys", "jwks", "audit"].map((n) => [
      n,
      collection(n),
    ]),
  ) as unknown as Collections;
  return { c, seen };
}

const noTransactions: Transactions = {
  available: async () => false,
  run: () => Promise.reject(new Error("no transactions")),
};

// Fields whose value comes from a caller (ids, identifiers, hashes of secrets).
const CALLER_FIELDS = new Set(["_id", "userId", "email", "identifier", "tokenHash", "valueHash", "keyHash"]);

/** The caller-supplied fields of a filter that hold a bare value instead of an operator object. */
function bareFields(filter: unknown): string[] {
  if (filter === null || typeof filter !== "object") return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      for (const part of value as unknown[]) out.push(...bareFields(part));
      continue;
    }
    if (!CALLER_FIELDS.has(key)) continue;
    const isOperator =
      value !== null && typeof value === "object" && Object.keys(value).every((k) => k.startsWith("$"));
    if (!isOperator) out.push(key);
  }
  return out;
}

const HOSTILE = { $ne: null } as unknown as string;

describe("MongoDB filters take caller values through $eq", () => {
  it("the trusted-call paths of issue 33 (revokeSessions, deleteUser, listAuditEvents) and every id lookup", async () => {
    const { c, seen } = recordingCollections();
    const users = usersPort(c, noTransactions);
    const sessions = sessionsPort(c);
    await sessions.deleteByUser(HOSTILE);
    await sessions.deleteByUser("u_1", HOSTILE);
    await sessions.findByTokenHash(HOSTILE);
    await sessions.delete(HOSTILE);
    await sessions.touch(HOSTILE, new Date(), new Date());
    await users.delete(HOSTILE);
    await users.findById(HOSTILE);
    await users.findByEmail(HOSTILE);
    await users.findByUsername(HOSTILE);
    await auditPort(c).list({ userId: HOSTILE, limit: 10, cursor: null });
    await accountsPort(c).listByUser(HOSTILE);
    await accountsPort(c).deleteAllExcept(HOSTILE, "credential");
    const verifications = verificationsPort(c);
    await verifications.findByIdentifier(HOSTILE);
    await verifications.findByValueHash(HOSTILE);
    await verifications.consume(HOSTILE);
    await verifications.deleteByIdentifier(HOSTILE);
    await verifications.recordFailedAttempt(HOSTILE, 3);
    const keys = apiKeysPort(c);
    await keys.findByHash(HOSTILE);
    await keys.findByHashWithOwner(HOSTILE);
    await keys.findById(HOSTILE);
    await keys.listByUser(HOSTILE, { limit: 10, cursor: null });
    await keys.delete(HOSTILE, HOSTILE);
    const counters = countersPort(c);
    await counters.peek(HOSTILE, 0);
    await counters.delete(HOSTILE);

    expect(seen.length).toBeGreaterThanOrEqual(28);
    const bare = seen.flatMap((r) => bareFields(r.filter).map((field) => `${r.collection}.${r.method} ${field}`));
    expect(bare).toEqual([]);
    // The hostile object arrives only as the operand of $eq (or $ne for the kept session), never as a filter.
    const revoke = seen.find((r) => r.collection === "sessions" && r.method === "deleteMany");
    expect(revoke?.filter).toEqual({ userId: { $eq: HOSTILE } });
    const audit = seen.find((r) => r.collection === "audit" && r.method === "find");
    expect(audit?.filter).toEqual({ userId: { $eq: HOSTILE } });
  });

  it("the check itself flags a bare value (it can fail)", () => {
    expect(bareFields({ userId: "u_1" })).toEqual(["userId"]);
    expect(bareFields({ userId: { $ne: null } })).toEqual([]);
    expect(bareFields({ $and: [{ _id: "x" }] })).toEqual(["_id"]);
  });
});
