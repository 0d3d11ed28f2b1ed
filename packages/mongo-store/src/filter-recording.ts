import type { Collections } from "./database.ts";
import type { Transactions } from "./connection.ts";

// For the filter tests (filters*.test.ts): fake collections (no server) that record the filter of every call, and the
// check that a caller's value in a filter is an operand (`{ $eq: value }`), never the filter itself.

type Recorded = { collection: string; method: string; filter: unknown };

export function recordingCollections(): { c: Collections; seen: Recorded[] } {
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
          // An inserted document is not a filter: only methods that take one are recorded.
          if (!method.startsWith("insert")) seen.push({ collection: name, method, filter });
          if (method === "find") return cursor;
          if (method.startsWith("delete")) return Promise.resolve({ deletedCount: 0 });
          if (method === "countDocuments") return Promise.resolve(0);
          return Promise.resolve(null);
        },
      },
    );
  const c = Object.fromEntries(
    [
      "users",
      "sessions",
      "accounts",
      "verifications",
      "counters",
      "apiKeys",
      "jwks",
      "audit",
      "twoFactor",
      "passkeys",
      "organizations",
      "members",
      "invitations",
    ].map((n) => [n, collection(n)]),
  ) as unknown as Collections;
  return { c, seen };
}

export const noTransactions: Transactions = {
  available: async () => false,
  run: () => Promise.reject(new Error("no transactions")),
};

// Fields whose value comes from a caller (ids, identifiers, hashes of secrets).
const CALLER_FIELDS = new Set([
  "_id",
  "userId",
  "email",
  "username",
  "identifier",
  "tokenHash",
  "valueHash",
  "keyHash",
  "previousKeyHash",
  "rid",
  "secret",
  "recoveryCodes",
  // A provider subject (the provider id of a linked identity too, but the credential filters name theirs as a constant).
  "accountId",
  "credentialId",
  "organizationId",
  "slug",
  "activeOrganizationId",
  "impersonatedBy",
]);

/** The caller-supplied fields of a filter that hold a bare value instead of an operator object. */
export function bareFields(filter: unknown): string[] {
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

export const HOSTILE = { $ne: null } as unknown as string;
