import type {
  AccountRecord,
  ApiKeyRecord,
  AuditRecord,
  CounterState,
  JwkRecord,
  TwoFactorRecord,
  PasskeyRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  SessionRecord,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";
import { Table } from "./table.ts";

/**
 * The memory store's data: one map per table, plus the unique indexes (email, username, token hash, key hash)
 * as maps from value to id. Every port of one store shares one of these; every port method does its whole
 * read-modify-write synchronously, so it is atomic on JavaScript's single thread.
 *
 * The tables a hot call looks up by something other than the id are `Table`s, whose secondary indexes follow
 * every write (table.ts): sessions, accounts and API keys by user; verifications by identifier, by value hash and
 * by user. A call through them visits only the rows it reads or changes; only the sweeps walk a whole table.
 */
export interface MemoryDatabase {
  users: Map<string, UserRecord>;
  emails: Map<string, string>;
  usernames: Map<string, string>;
  /** By user, by active organization and by impersonating admin (sessions without one are left out of each). */
  sessions: Table<SessionRecord, "user" | "activeOrganization" | "impersonator">;
  sessionsByHash: Map<string, string>;
  /** By user, and by provider identity (`providerId` NUL `accountId`, unique; rows without a subject are left out). */
  accounts: Table<AccountRecord, "user" | "identity">;
  verifications: Table<VerificationRecord, "identifier" | "valueHash" | "user">;
  counters: Map<string, CounterState>;
  apiKeys: Table<ApiKeyRecord, "user" | "organization">;
  apiKeysByHash: Map<string, string>;
  jwks: Map<string, JwkRecord>;
  audit: AuditRecord[];
  twoFactor: Map<string, TwoFactorRecord>;
  /** By user, and by credential id (unique). */
  passkeys: Table<PasskeyRecord, "user" | "credential">;
  /** By slug (unique). */
  organizations: Table<OrganizationRecord, "slug">;
  /** By organization, by user, and by the pair (`organizationId` NUL `userId`, unique). */
  members: Table<MemberRecord, "organization" | "user" | "membership">;
  /** By organization and by email. */
  invitations: Table<InvitationRecord, "organization" | "email">;
}

export function memoryDatabase(): MemoryDatabase {
  return {
    users: new Map(),
    emails: new Map(),
    usernames: new Map(),
    sessions: new Table<SessionRecord, "user" | "activeOrganization" | "impersonator">({
      user: (s) => s.userId,
      activeOrganization: (s) => s.activeOrganizationId ?? null,
      impersonator: (s) => s.impersonatedBy ?? null,
    }),
    sessionsByHash: new Map(),
    accounts: new Table<AccountRecord, "user" | "identity">({ user: (a) => a.userId, identity: identityKey }, [
      "identity",
    ]),
    verifications: new Table(
      { identifier: (v) => v.identifier, valueHash: (v) => v.valueHash, user: (v) => v.userId },
      ["identifier"],
    ),
    counters: new Map(),
    apiKeys: new Table({ user: (k) => k.userId, organization: (k) => k.organizationId ?? null }),
    apiKeysByHash: new Map(),
    jwks: new Map(),
    audit: [],
    twoFactor: new Map(),
    passkeys: new Table<PasskeyRecord, "user" | "credential">(
      { user: (p) => p.userId, credential: (p) => p.credentialId },
      ["credential"],
    ),
    organizations: new Table<OrganizationRecord, "slug">({ slug: (o) => o.slug }, ["slug"]),
    members: new Table<MemberRecord, "organization" | "user" | "membership">(
      { organization: (m) => m.organizationId, user: (m) => m.userId, membership: membershipKey },
      ["membership"],
    ),
    invitations: new Table<InvitationRecord, "organization" | "email">({
      organization: (i) => i.organizationId,
      email: (i) => i.email,
    }),
  };
}

/** The key of a membership in the members' unique `membership` index. */
export function membershipKey(member: Pick<MemberRecord, "organizationId" | "userId">): string {
  return `${member.organizationId}\u0000${member.userId}`;
}

/** The key of a linked provider identity in the accounts' `identity` index; null for accounts without a subject. */
export function identityKey(account: Pick<AccountRecord, "providerId" | "accountId">): string | null {
  return account.accountId === null ? null : `${account.providerId}\u0000${account.accountId}`;
}

/**
 * Records are copied in and out so callers can never mutate stored state. A plain recursive copy: records hold
 * only Dates, JSON values and primitives, and this is several times cheaper than structuredClone on the session
 * lookup that runs on every authenticated request.
 */
export function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

/** Removes a session and its token-hash index entry; false when there was none. */
export function dropSession(db: MemoryDatabase, id: string): boolean {
  const s = db.sessions.get(id);
  if (!s) return false;
  db.sessions.delete(id);
  db.sessionsByHash.delete(s.tokenHash);
  return true;
}

/** Removes an API key and its key-hash index entries (current and rerolled value); the removed key, or null when there was none. */
export function dropApiKey(db: MemoryDatabase, id: string): ApiKeyRecord | null {
  const k = db.apiKeys.get(id);
  if (!k) return null;
  db.apiKeys.delete(id);
  db.apiKeysByHash.delete(k.keyHash);
  if (k.previousKeyHash !== null) db.apiKeysByHash.delete(k.previousKeyHash);
  return k;
}
