import type { Db, Document } from "mongodb";
import { COLLECTION_NAMES, type CollectionName } from "./database.ts";

/** One index the store relies on. */
export interface IndexSpec {
  collection: CollectionName;
  name: string;
  key: Record<string, 1 | -1>;
  unique?: true;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
}

/**
 * How long after expiry a TTL index deletes a row. TTL deletes are cleanup only: callers check expiry with their
 * own clock, and an expired OTP must still be found to answer OTP_EXPIRED instead of INVALID_OTP. The grace also
 * covers clock skew between the app and the server (a counter must never vanish while its window still runs).
 */
export const TTL_GRACE_SECONDS = 24 * 60 * 60;

const C = COLLECTION_NAMES;

/** Every index, unique ones first; `migrateMongo` creates them and the store assumes they exist. */
export const INDEX_SPECS: readonly IndexSpec[] = [
  { collection: C.users, name: "email_unique", key: { email: 1 }, unique: true },
  // Partial, not sparse: users without a username store `username: null`, which a sparse index would still index.
  {
    collection: C.users,
    name: "username_unique",
    key: { username: 1 },
    unique: true,
    partialFilterExpression: { username: { $type: "string" } },
  },
  { collection: C.sessions, name: "tokenHash_unique", key: { tokenHash: 1 }, unique: true },
  {
    collection: C.accounts,
    name: "credential_per_user_unique",
    key: { userId: 1, providerId: 1 },
    unique: true,
    partialFilterExpression: { providerId: "credential" },
  },
  // One user per provider identity; accounts without a subject (passwords, email codes) store `accountId: null`.
  {
    collection: C.accounts,
    name: "provider_account_unique",
    key: { providerId: 1, accountId: 1 },
    unique: true,
    partialFilterExpression: { accountId: { $type: "string" } },
  },
  { collection: C.verifications, name: "identifier_unique", key: { identifier: 1 }, unique: true },
  {
    collection: C.verifications,
    name: "rid_unique",
    key: { rid: 1 },
    unique: true,
    partialFilterExpression: { rid: { $type: "string" } },
  },
  { collection: C.apiKeys, name: "keyHash_unique", key: { keyHash: 1 }, unique: true },
  {
    collection: C.apiKeys,
    name: "previousKeyHash_unique",
    key: { previousKeyHash: 1 },
    unique: true,
    partialFilterExpression: { previousKeyHash: { $type: "string" } },
  },
  { collection: C.jwks, name: "generation_unique", key: { generation: 1 }, unique: true },
  { collection: C.passkeys, name: "credentialId_unique", key: { credentialId: 1 }, unique: true },
  { collection: C.organizations, name: "slug_unique", key: { slug: 1 }, unique: true },
  {
    collection: C.members,
    name: "organization_user_unique",
    key: { organizationId: 1, userId: 1 },
    unique: true,
  },
  { collection: C.members, name: "userId_created", key: { userId: 1, createdAt: 1, _id: 1 } },
  { collection: C.members, name: "organizationId_created", key: { organizationId: 1, createdAt: 1, _id: 1 } },
  { collection: C.invitations, name: "organizationId_createdAt", key: { organizationId: 1, createdAt: -1, _id: -1 } },
  { collection: C.invitations, name: "email_createdAt", key: { email: 1, createdAt: -1, _id: -1 } },
  // The sessions an organization's deletion clears (only sessions with an active organization are indexed).
  {
    collection: C.sessions,
    name: "activeOrganizationId",
    key: { activeOrganizationId: 1 },
    partialFilterExpression: { activeOrganizationId: { $type: "string" } },
  },
  // The sessions an admin's lost authority ends (`deleteImpersonatedBy`; only impersonation sessions are indexed).
  {
    collection: C.sessions,
    name: "impersonatedBy",
    key: { impersonatedBy: 1 },
    partialFilterExpression: { impersonatedBy: { $type: "string" } },
  },
  { collection: C.sessions, name: "userId", key: { userId: 1 } },
  { collection: C.accounts, name: "userId", key: { userId: 1 } },
  { collection: C.passkeys, name: "userId_created", key: { userId: 1, createdAt: 1, _id: 1 } },
  // Not unique: OTP codes are short, so two live codes for different identifiers may share a hash.
  { collection: C.verifications, name: "valueHash", key: { valueHash: 1 } },
  { collection: C.verifications, name: "userId", key: { userId: 1 } },
  { collection: C.apiKeys, name: "userId_createdAt", key: { userId: 1, createdAt: -1, _id: -1 } },
  { collection: C.apiKeys, name: "expiresAt", key: { expiresAt: 1 } },
  { collection: C.apiKeys, name: "previousKeyExpiresAt", key: { previousKeyExpiresAt: 1 } },
  // An organization's keys, newest first (its list, its deletion); keys of no organization stay out of it.
  {
    collection: C.apiKeys,
    name: "organizationId_createdAt",
    key: { organizationId: 1, createdAt: -1, _id: -1 },
    partialFilterExpression: { organizationId: { $type: "string" } },
  },
  { collection: C.audit, name: "userId_at", key: { userId: 1, at: -1, _id: -1 } },
  { collection: C.audit, name: "at", key: { at: -1, _id: -1 } },
  { collection: C.sessions, name: "expiresAt_ttl", key: { expiresAt: 1 }, expireAfterSeconds: TTL_GRACE_SECONDS },
  { collection: C.verifications, name: "expiresAt_ttl", key: { expiresAt: 1 }, expireAfterSeconds: TTL_GRACE_SECONDS },
  { collection: C.counters, name: "resetAt_ttl", key: { resetAt: 1 }, expireAfterSeconds: TTL_GRACE_SECONDS },
];

/** What `listIndexes` reports about an existing index (the fields compared here). */
export interface ExistingIndex {
  name: string;
  key: Record<string, unknown>;
  unique?: boolean;
  expireAfterSeconds?: number;
}

/** Changes that bring one collection's indexes to the specs. */
export interface IndexPlan {
  create: IndexSpec[];
  /** TTL indexes whose `expireAfterSeconds` differs: changed in place with `collMod`. */
  retune: { spec: IndexSpec; from: number | undefined }[];
}

const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));

/**
 * Compares existing indexes with the wanted ones. An index counts as present under its name or, when created by
 * hand, under another name with the same key and uniqueness. A same-named index with another key or uniqueness
 * cannot be fixed in place and throws (drop it by hand); partial filters are not compared, since the server may
 * normalise them.
 */
export function planIndexes(existing: readonly ExistingIndex[], wanted: readonly IndexSpec[]): IndexPlan {
  const plan: IndexPlan = { create: [], retune: [] };
  for (const spec of wanted) {
    const named = existing.find((e) => e.name === spec.name);
    if (named && (!sameKey(named.key, spec.key) || Boolean(named.unique) !== Boolean(spec.unique))) {
      throw new Error(
        `mongodb: index ${spec.collection}.${spec.name} exists with another key or uniqueness; drop it and run migrate again`,
      );
    }
    const match = named ?? existing.find((e) => sameKey(e.key, spec.key) && Boolean(e.unique) === Boolean(spec.unique));
    if (!match) plan.create.push(spec);
    else if (match.expireAfterSeconds !== spec.expireAfterSeconds && spec.expireAfterSeconds !== undefined) {
      plan.retune.push({ spec: { ...spec, name: match.name }, from: match.expireAfterSeconds });
    }
  }
  return plan;
}

/** One readable line per index, for the migrate log. */
export function describeIndex(spec: IndexSpec): string {
  const traits = [
    spec.unique ? "unique" : null,
    spec.partialFilterExpression ? `partial ${JSON.stringify(spec.partialFilterExpression)}` : null,
    spec.expireAfterSeconds !== undefined ? `ttl +${spec.expireAfterSeconds}s` : null,
  ].filter((t) => t !== null);
  return `${spec.collection}.${spec.name} ${JSON.stringify(spec.key)}${traits.length ? ` (${traits.join(", ")})` : ""}`;
}

const NAMESPACE_NOT_FOUND = 26;

async function existingIndexes(db: Db, collection: string): Promise<ExistingIndex[]> {
  try {
    const found = await db.collection(collection).listIndexes().toArray();
    return found.map((i) => ({ name: i.name, key: i.key, unique: i.unique, expireAfterSeconds: i.expireAfterSeconds }));
  } catch (error) {
    if ((error as { code?: unknown }).code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

/**
 * Creates the missing indexes among `specs` (and retunes changed TTLs); returns one line per change, each also
 * passed to `log` as it is applied. A second run returns an empty list.
 */
export async function ensureIndexes(
  db: Db,
  specs: readonly IndexSpec[],
  log: (line: string) => void = () => {},
): Promise<string[]> {
  const lines: string[] = [];
  const collections = [...new Set(specs.map((s) => s.collection))];
  for (const collection of collections) {
    const plan = planIndexes(
      await existingIndexes(db, collection),
      specs.filter((s) => s.collection === collection),
    );
    for (const spec of plan.create) {
      const { collection: _, key, ...options } = spec;
      await db.collection(collection).createIndex(key, options);
      lines.push(`created index ${describeIndex(spec)}`);
      log(lines[lines.length - 1]!);
    }
    for (const { spec, from } of plan.retune) {
      await db.command({
        collMod: collection,
        index: { name: spec.name, expireAfterSeconds: spec.expireAfterSeconds },
      });
      lines.push(`changed TTL of ${collection}.${spec.name} from ${from ?? "none"} to ${spec.expireAfterSeconds}s`);
      log(lines[lines.length - 1]!);
    }
  }
  return lines;
}
