import type { Collection, Db } from "mongodb";
import type {
  AccountDoc,
  ApiKeyDoc,
  AuditDoc,
  CounterDoc,
  JwkDoc,
  PasskeyDoc,
  OrganizationDoc,
  MemberDoc,
  InvitationDoc,
  TwoFactorDoc,
  SessionDoc,
  UserDoc,
  VerificationDoc,
} from "./documents.ts";

/** Collection names, by port. */
export const COLLECTION_NAMES = {
  users: "users",
  sessions: "sessions",
  accounts: "accounts",
  verifications: "verifications",
  counters: "counters",
  apiKeys: "api_keys",
  jwks: "jwks",
  audit: "audit_events",
  twoFactor: "two_factor",
  passkeys: "passkeys",
  organizations: "organizations",
  members: "members",
  invitations: "invitations",
} as const;

export type CollectionName = (typeof COLLECTION_NAMES)[keyof typeof COLLECTION_NAMES];

/** The typed collections of one database. */
export interface Collections {
  users: Collection<UserDoc>;
  sessions: Collection<SessionDoc>;
  accounts: Collection<AccountDoc>;
  verifications: Collection<VerificationDoc>;
  counters: Collection<CounterDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  jwks: Collection<JwkDoc>;
  audit: Collection<AuditDoc>;
  twoFactor: Collection<TwoFactorDoc>;
  passkeys: Collection<PasskeyDoc>;
  organizations: Collection<OrganizationDoc>;
  members: Collection<MemberDoc>;
  invitations: Collection<InvitationDoc>;
}

export function collectionsOf(db: Db): Collections {
  return {
    users: db.collection<UserDoc>(COLLECTION_NAMES.users),
    sessions: db.collection<SessionDoc>(COLLECTION_NAMES.sessions),
    accounts: db.collection<AccountDoc>(COLLECTION_NAMES.accounts),
    verifications: db.collection<VerificationDoc>(COLLECTION_NAMES.verifications),
    counters: db.collection<CounterDoc>(COLLECTION_NAMES.counters),
    apiKeys: db.collection<ApiKeyDoc>(COLLECTION_NAMES.apiKeys),
    jwks: db.collection<JwkDoc>(COLLECTION_NAMES.jwks),
    audit: db.collection<AuditDoc>(COLLECTION_NAMES.audit),
    twoFactor: db.collection<TwoFactorDoc>(COLLECTION_NAMES.twoFactor),
    passkeys: db.collection<PasskeyDoc>(COLLECTION_NAMES.passkeys),
    organizations: db.collection<OrganizationDoc>(COLLECTION_NAMES.organizations),
    members: db.collection<MemberDoc>(COLLECTION_NAMES.members),
    invitations: db.collection<InvitationDoc>(COLLECTION_NAMES.invitations),
  };
}
