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
  PasswordHasher,
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

/**
 * Reads the scoped rows through the ports (never a flow's call: take it outside the scheduler's flows).
 *
 * @example
 * const snap = await takeSnapshot(store, { userIds: [ada.userId], sessionTokens: [token] });
 */
export async function takeSnapshot(store: FullStore, scope: SnapshotScope): Promise<Snapshot> {
  const snap: Snapshot = {
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

/** One broken invariant: its number in docs/invariants.md and what was found. */
export interface Violation {
  invariant: number;
  detail: string;
}

const v = (invariant: number, detail: string): Violation => ({ invariant, detail });

/**
 * I1. Every user has at least one account or passkey (a user with neither can never sign in and blocks the
 * address). A passkey-only account (`passkeys({ allowPasskeyOnlyAccounts })`) has no account row.
 */
export function usersHaveAccounts(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, user] of s.users)
    if (user && (s.accounts.get(id) ?? []).length === 0 && (s.passkeys.get(id) ?? []).length === 0)
      out.push(v(1, `user ${id} (${user.email}) has no account`));
  return out;
}

/** I2. Nothing hangs off a user who is gone: no session, account, API key or passkey of a deleted user. */
export function nothingOfDeletedUsers(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, user] of s.users) {
    if (user) continue;
    if ((s.sessionCounts.get(id) ?? 0) > 0)
      out.push(v(2, `deleted user ${id} has ${s.sessionCounts.get(id)} sessions`));
    if ((s.accounts.get(id) ?? []).length > 0) out.push(v(2, `deleted user ${id} still has accounts`));
    if ((s.passkeys.get(id) ?? []).length > 0) out.push(v(2, `deleted user ${id} still has passkeys`));
  }
  for (const [credentialId, found] of s.byCredential)
    if (found && !s.users.get(found.userId))
      out.push(v(2, `passkey ${credentialId.slice(0, 6)}… of a deleted user ${found.userId}`));
  for (const [token, found] of s.sessions)
    if (found && !s.users.get(found.session.userId)) out.push(v(2, `session ${token.slice(0, 6)}… of a deleted user`));
  for (const [id, key] of [...s.apiKeys, ...s.apiKeysByValue])
    if (key && s.users.has(key.userId) && !s.users.get(key.userId))
      out.push(v(2, `API key ${id.slice(0, 6)}… of a deleted user`));
  return out;
}

/** I3. One user per email: the email index finds the user that holds the address. */
export function emailIndexConsistent(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [email, user] of s.byEmail)
    if (user && user.email !== email) out.push(v(3, `findByEmail(${email}) answered a user with ${user.email}`));
  for (const user of s.users.values())
    if (user && s.byEmail.has(user.email) && s.byEmail.get(user.email)?.id !== user.id)
      out.push(v(3, `${user.email} resolves to another user than ${user.id}`));
  return out;
}

/** A session a flow obtained by proving a password. */
export interface PasswordSession {
  token: string;
  password: string;
}

/**
 * I4. No live session created from a password that was replaced before the session was created. Applies where the
 * replacement revokes the other sessions (reset by link or code, change-password with revocation, set-password
 * after a mailbox proof): any such session still alive whose password is no longer the user's was created after
 * the replacement.
 */
export async function noSessionFromReplacedPassword(
  s: Snapshot,
  sessions: readonly PasswordSession[],
  hasher: PasswordHasher,
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const { token, password } of sessions) {
    const found = s.sessions.get(token);
    if (!found) continue;
    const credential = (s.accounts.get(found.session.userId) ?? []).find((a) => a.passwordHash);
    if (!credential?.passwordHash || !(await hasher.verify(credential.passwordHash, password)))
      out.push(v(4, `a session signed in with a replaced password is alive (user ${found.session.userId})`));
  }
  return out;
}

/** How much of a one-time token's effect is in the store: all of it, none of it, or a description of a part. */
export type EffectState = "complete" | "none" | { partial: string };

/**
 * I5. A spent one-time token means its effect happened, or the flow can be redone: spent with the whole effect,
 * or spent with none of it (the user asks for a new token), never spent with a part of it (a password written
 * while the other sessions live on, with no token left to finish the job). `row` is the token's row as it is now
 * (null: spent or gone).
 */
export function spentTokenHadEffect(
  what: string,
  row: VerificationRecord | null | undefined,
  effect: () => EffectState,
): Violation[] {
  if (row) return [];
  const state = effect();
  return typeof state === "object"
    ? [v(5, `${what} is spent but only part of its effect happened: ${state.partial}`)]
    : [];
}

/** I6. At most `maxFailures` password checks per lockout window per account (plus the documented margin). */
export function lockoutBound(passwordChecks: number, maxFailures: number, margin = 0): Violation[] {
  return passwordChecks > maxFailures + margin
    ? [v(6, `${passwordChecks} password checks with maxFailures ${maxFailures} (margin ${margin})`)]
    : [];
}

/** I7. Exactly one active JWT key once any exists, and it is the newest generation. */
export function oneActiveJwk(s: Snapshot): Violation[] {
  if (s.jwks.length === 0) return [];
  const active = s.jwks.filter((k) => k.retiredAt === null);
  if (active.length !== 1) return [v(7, `${active.length} active JWT keys`)];
  const newest = Math.max(...s.jwks.map((k) => k.generation));
  return active[0]!.generation === newest
    ? []
    : [v(7, `the active key is generation ${active[0]!.generation}, not ${newest}`)];
}

/** How a key was refused: `disabled`, `deleted`, or `replaced` (its value was rerolled away without a grace). */
export type Refusal = "disabled" | "deleted" | "replaced";

/** I8. A refused API key never verifies: its stored state refuses it (the HTTP check is the test's). */
export function refusedKeyStaysRefused(s: Snapshot, value: string, refusal: Refusal): Violation[] {
  const key = s.apiKeysByValue.get(value);
  if (refusal === "disabled" && key?.enabled) return [v(8, `a disabled key is enabled again (${key.id})`)];
  if (refusal === "deleted" && key) return [v(8, `a deleted key is back (${key.id})`)];
  if (refusal === "replaced" && key && (key.keyHash === hashSecret(value) || key.previousKeyExpiresAt !== null))
    return [v(8, `a replaced key value still matches key ${key.id}`)];
  return [];
}

/**
 * I9. No request's rollback removes another request's writes: every session a request was answered (and that no
 * later request revoked) is still there.
 */
export function answeredSessionsExist(s: Snapshot, tokens: readonly string[]): Violation[] {
  return tokens.filter((t) => !s.sessions.get(t)).map((t) => v(9, `an answered session ${t.slice(0, 6)}… is gone`));
}

/** I10. A quota is never overdrawn: the uses granted plus what remains equal what there was. */
export function quotaConserved(s: Snapshot, keyId: string, initial: number, granted: number): Violation[] {
  const key = s.apiKeys.get(keyId);
  if (!key) return [v(10, `key ${keyId} vanished`)];
  if (key.remaining === null || key.remaining < 0) return [v(10, `remaining is ${key.remaining}`)];
  return key.remaining + granted === initial
    ? []
    : [v(10, `${granted} uses granted, ${key.remaining} remain, of ${initial}`)];
}

/** I11. A live one-time code has fewer failed attempts than the limit (at the limit it is destroyed). */
export function codesUnderAttemptLimit(s: Snapshot, maxAttempts: number): Violation[] {
  const out: Violation[] = [];
  for (const [identifier, row] of s.verifications)
    if (row && row.attemptCount >= maxAttempts)
      out.push(v(11, `${identifier} has ${row.attemptCount} failed attempts`));
  return out;
}

/**
 * A way to sign in: a password (a `credential` account with its hash), a mailbox method (an `EMAIL_OTP` or
 * magic-link account) or a linked provider identity, or a passkey. A `credential` row without a hash is none.
 */
const signsIn = (a: AccountRecord) => a.providerId !== "credential" || a.passwordHash !== null;

/**
 * I14. No user without a way to sign in: every user has an account that signs in (stricter than I1, which a
 * password-less `credential` row would satisfy). Unlinking a provider never removes the last one, whatever races it.
 */
export function usersCanSignIn(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, user] of s.users)
    if (user && !(s.accounts.get(id) ?? []).some(signsIn) && (s.passkeys.get(id) ?? []).length === 0)
      out.push(v(14, `user ${id} (${user.email}) has no way to sign in`));
  return out;
}

/**
 * I15. One user per provider subject: a provider identity is linked to at most one user, the lookup by subject finds
 * that user's account, and it never answers an account of a user who is gone.
 */
export function oneUserPerProviderSubject(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  const owners = new Map<string, string[]>();
  for (const [id, user] of s.users) {
    if (!user) continue;
    for (const a of s.accounts.get(id) ?? []) {
      if (a.accountId === null) continue;
      const key = subjectKey(a.providerId, a.accountId);
      owners.set(key, [...(owners.get(key) ?? []), `${id}/${a.id}`]);
      const found = s.bySubject.get(key);
      if (s.bySubject.has(key) && (found?.account.id !== a.id || found.user.id !== id))
        out.push(
          v(
            15,
            `${a.providerId} subject ${a.accountId} of user ${id} is found as ${found ? found.user.id : "nobody's"}`,
          ),
        );
    }
  }
  for (const [key, held] of owners)
    if (held.length > 1)
      out.push(v(15, `${key.replace("\u0000", " subject ")} is linked ${held.length} times: ${held.join(", ")}`));
  for (const [key, found] of s.bySubject)
    if (found && s.users.has(found.user.id) && !s.users.get(found.user.id))
      out.push(v(15, `${key.replace("\u0000", " subject ")} points at deleted user ${found.user.id}`));
  return out;
}

/**
 * I16. No session of a banned user (`admin()`): a user banned without an end has no session in the store, whatever
 * raced the ban (a sign-in, an impersonation). A ban with an end is left out: it may have ended, and then sessions
 * are allowed again.
 */
export function noSessionOfBannedUser(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, user] of s.users) {
    if (!user?.banned || user.banExpires !== null) continue;
    if ((s.sessionCounts.get(id) ?? 0) > 0)
      out.push(v(16, `banned user ${id} (${user.email}) has ${s.sessionCounts.get(id)} sessions`));
  }
  for (const [token, found] of s.sessions) {
    const owner = found && s.users.get(found.session.userId);
    if (owner?.banned && owner.banExpires === null)
      out.push(v(16, `session ${token.slice(0, 6)}… of banned user ${owner.id}`));
  }
  return out;
}

/** I17. Every organization has an owner: an organization that exists has at least one member with the role `owner`. */
export function everyOrganizationHasAnOwner(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, state] of s.organizations)
    if (state.organization && !state.members.some((m) => m.role === "owner"))
      out.push(
        v(17, `organization ${id} has no owner (members: ${state.members.map((m) => m.role).join(", ") || "none"})`),
      );
  return out;
}

/**
 * I18. No member of a deleted organization or of a deleted user: an organization that is gone has no member and no
 * invitation left, and a user who is gone is a member of nothing.
 */
export function noMemberOfDeleted(s: Snapshot): Violation[] {
  const out: Violation[] = [];
  for (const [id, state] of s.organizations)
    if (!state.organization && (state.members.length > 0 || state.invitations.length > 0))
      out.push(
        v(
          18,
          `deleted organization ${id} keeps ${state.members.length} members, ${state.invitations.length} invitations`,
        ),
      );
  for (const [id, held] of s.memberships)
    if (s.users.get(id) === null && held.length > 0)
      out.push(v(18, `deleted user ${id} is still a member of ${held.map((m) => m.organizationId).join(", ")}`));
  for (const state of s.organizations.values())
    for (const m of state.members)
      if (s.users.has(m.userId) && s.users.get(m.userId) === null)
        out.push(v(18, `deleted user ${m.userId} is still listed in organization ${m.organizationId}`));
  return out;
}

/** The invariants that need nothing but the snapshot: I1, I2, I3, I7, I14, I15, I16, I17, I18. */
export function structuralViolations(s: Snapshot): Violation[] {
  return [
    ...everyOrganizationHasAnOwner(s),
    ...noMemberOfDeleted(s),
    ...usersHaveAccounts(s),
    ...nothingOfDeletedUsers(s),
    ...emailIndexConsistent(s),
    ...oneActiveJwk(s),
    ...usersCanSignIn(s),
    ...oneUserPerProviderSubject(s),
    ...noSessionOfBannedUser(s),
  ];
}

/** Formats violations for an assertion message. */
export const describeViolations = (violations: readonly Violation[]) =>
  violations.map((x) => `I${x.invariant}: ${x.detail}`).join("\n");

/** What I12 asks of the auth under test: `auth.core.ctx.devices.recognise`. */
export type RecogniseDevice = (token: string, userId: string, passwordHash: string | null) => Promise<unknown>;

/**
 * I12. No device cookie outlives its account's password change: none of `tokens` (each issued while the account had
 * a password that has been replaced since) is a known device of the account now, whatever the interleaving.
 */
export async function noDeviceOutlivesPasswordChange(
  s: Snapshot,
  userId: string,
  tokens: readonly string[],
  recognise: RecogniseDevice,
): Promise<Violation[]> {
  const current = (s.accounts.get(userId) ?? []).find((a) => a.providerId === "credential")?.passwordHash ?? null;
  const out: Violation[] = [];
  for (const token of tokens)
    if ((await recognise(token, userId, current)) !== null)
      out.push(v(12, `a device token ${token.slice(0, 6)}… issued before the password change still verifies`));
  return out;
}
