import { hashSecret } from "@latchkey/core";
import type {
  AccountRecord,
  ApiKeyRecord,
  FullStore,
  JwkRecord,
  PasskeyRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  SessionRecord,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";

/**
 * What a snapshot looks at. The ports have no "list everything", so a test names what its flows could have
 * touched: users (by id and email), session tokens, verification identifiers, API-key ids and values.
 */
export interface SnapshotScope {
  userIds?: readonly string[];
  emails?: readonly string[];
  sessionTokens?: readonly string[];
  identifiers?: readonly string[];
  apiKeyIds?: readonly string[];
  /** Plaintext API keys (current and replaced values). */
  apiKeyValues?: readonly string[];
  /** Include the JWK set. */
  jwks?: boolean;
  /** Provider identities `[providerId, accountId]` to look up by subject (`socialAccounts.findByProviderAccount`). */
  providerSubjects?: ReadonlyArray<readonly [string, string]>;
  /** Passkey credential ids to look up (`passkeys.findByCredentialId`). */
  passkeyCredentials?: readonly string[];
  /** Organizations to look up with their members and invitations (`organizations` port). */
  organizationIds?: readonly string[];
}

/** An organization as a snapshot reads it: the row (null when gone), its members and its invitations. */
export interface OrganizationState {
  organization: OrganizationRecord | null;
  members: MemberRecord[];
  invitations: InvitationRecord[];
}

/** The state of the scoped rows, read through the ports only. */
export interface Snapshot {
  users: Map<string, UserRecord | null>;
  byEmail: Map<string, UserRecord | null>;
  accounts: Map<string, AccountRecord[]>;
  /**
   * How many sessions each scoped user has (any token, including ones no test saw). Empty on a store whose
   * transactions do not roll back (a compensating transaction): there only the named tokens are looked at.
   */
  sessionCounts: Map<string, number>;
  sessions: Map<string, { session: SessionRecord; user: UserRecord } | null>;
  verifications: Map<string, VerificationRecord | null>;
  apiKeys: Map<string, ApiKeyRecord | null>;
  apiKeysByValue: Map<string, ApiKeyRecord | null>;
  jwks: JwkRecord[];
  /**
   * What `socialAccounts.findByProviderAccount` answers for each named provider identity and for each linked
   * identity of a scoped user, keyed by `subjectKey(providerId, accountId)`. Empty on a store without the port.
   */
  bySubject: Map<string, { account: AccountRecord; user: UserRecord } | null>;
  /** Each scoped user's passkeys (empty on a store without the port). */
  passkeys: Map<string, PasskeyRecord[]>;
  /** What `passkeys.findByCredentialId` answers for each named credential id. */
  byCredential: Map<string, PasskeyRecord | null>;
  /** Each named organization (empty on a store without the port). */
  organizations: Map<string, OrganizationState>;
  /** Each scoped user's memberships (empty on a store without the port). */
  memberships: Map<string, MemberRecord[]>;
}

/** The key of a provider identity in `Snapshot.bySubject`. */
export const subjectKey = (providerId: string, accountId: string) => `${providerId}\u0000${accountId}`;

class CountOnly extends Error {}

const rollsBack = new WeakMap<FullStore, Promise<boolean>>();

/**
 * Whether a throw in `transaction` undoes the body's writes on this store (not so with `compensatingTransaction`,
 * which undoes only creations): a probe row is issued in a transaction that then throws, and looked for after.
 */
function storeRollsBack(store: FullStore): Promise<boolean> {
  let known = rollsBack.get(store);
  if (!known) {
    known = (async () => {
      const identifier = `seams-rollback-probe:${Math.random().toString(36).slice(2)}`;
      const at = new Date();
      try {
        await store.transaction(async (tx) => {
          await tx.verifications.issue({
            id: identifier.slice(-22),
            identifier,
            valueHash: identifier,
            attemptCount: 0,
            expiresAt: new Date(at.getTime() + 60_000),
            createdAt: at,
            userId: null,
            payload: null,
          });
          throw new CountOnly();
        });
      } catch (error) {
        if (!(error instanceof CountOnly)) throw error;
      }
      return (await store.verifications.deleteByIdentifier(identifier)) === 0;
    })();
    rollsBack.set(store, known);
  }
  return known;
}

/**
 * Counts a user's sessions through the ports: `deleteByUser` answers how many it deleted, inside a transaction
 * that is then rolled back, so nothing changes. Null on a store whose transactions do not roll back.
 */
async function countSessions(store: FullStore, userId: string): Promise<number | null> {
  if (!(await storeRollsBack(store))) return null;
  let count = -1;
  try {
    await store.transaction(async (tx) => {
      count = await tx.sessions.deleteByUser(userId);
      throw new CountOnly();
    });
  } catch (error) {
    if (!(error instanceof CountOnly)) throw error;
  }
  return count;
}

/** A snapshot of nothing: every map empty, no JWKs. */
export function emptySnapshot(): Snapshot {
  return {
    users: new Map(),
    byEmail: new Map(),
    accounts: new Map(),
    sessionCounts: new Map(),
    sessions: new Map(),
    verifications: new Map(),
    apiKeys: new Map(),
    apiKeysByValue: new Map(),
    jwks: [],
    bySubject: new Map(),
    passkeys: new Map(),
    byCredential: new Map(),
    organizations: new Map(),
    memberships: new Map(),
  };
}

/**
 * Reads the scoped rows through the ports (never a flow's call: take it outside the scheduler's flows).
 *
 * @example
 * const snap = await takeSnapshot(store, { userIds: [ada.userId], sessionTokens: [token] });
 */
export async function takeSnapshot(store: FullStore, scope: SnapshotScope): Promise<Snapshot> {
  const snap: Snapshot = emptySnapshot();
  const userIds = new Set(scope.userIds ?? []);
  const social = store.socialAccounts;
  for (const [providerId, accountId] of social ? (scope.providerSubjects ?? []) : []) {
    const found = await social!.findByProviderAccount(providerId, accountId);
    snap.bySubject.set(subjectKey(providerId, accountId), found);
    if (found) userIds.add(found.user.id);
  }
  const passkeys = store.passkeys;
  const orgs = store.organizations;
  for (const credentialId of passkeys ? (scope.passkeyCredentials ?? []) : []) {
    const found = await passkeys!.findByCredentialId(credentialId);
    snap.byCredential.set(credentialId, found);
    if (found) userIds.add(found.userId);
  }
  for (const email of scope.emails ?? []) {
    const user = await store.users.findByEmail(email);
    snap.byEmail.set(email, user);
    if (user) userIds.add(user.id);
  }
  for (const token of scope.sessionTokens ?? []) {
    const found = await store.sessions.findByTokenHash(hashSecret(token));
    snap.sessions.set(token, found);
    if (found) userIds.add(found.session.userId);
  }
  for (const id of scope.apiKeyIds ?? []) snap.apiKeys.set(id, await store.apiKeys.findById(id));
  for (const value of scope.apiKeyValues ?? [])
    snap.apiKeysByValue.set(value, await store.apiKeys.findByHash(hashSecret(value)));
  for (const id of userIds) {
    snap.users.set(id, await store.users.findById(id));
    const accounts = await store.accounts.listByUser(id);
    snap.accounts.set(id, accounts);
    for (const a of social ? accounts : [])
      if (a.accountId !== null && !snap.bySubject.has(subjectKey(a.providerId, a.accountId)))
        snap.bySubject.set(
          subjectKey(a.providerId, a.accountId),
          await social!.findByProviderAccount(a.providerId, a.accountId),
        );
    const count = await countSessions(store, id);
    if (count !== null) snap.sessionCounts.set(id, count);
    if (passkeys) snap.passkeys.set(id, await passkeys.listByUser(id));
    if (orgs)
      snap.memberships.set(
        id,
        (await orgs.listByUser(id)).map((m) => m.member),
      );
  }
  for (const id of orgs ? (scope.organizationIds ?? []) : []) {
    snap.organizations.set(id, {
      organization: await orgs!.findById(id),
      members: (await orgs!.listMembers(id)).map((m) => m.member),
      invitations: await orgs!.listInvitations(id),
    });
  }
  for (const identifier of scope.identifiers ?? [])
    snap.verifications.set(identifier, await store.verifications.findByIdentifier(identifier));
  if (scope.jwks) snap.jwks = await store.jwks.list();
  return snap;
}
