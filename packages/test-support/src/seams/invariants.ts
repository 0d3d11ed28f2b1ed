import type { AccountRecord } from "@latchkey/core";
import { subjectKey, type Snapshot } from "./snapshot.ts";

// The invariants of docs/invariants.md as checks over a snapshot (snapshot.ts takes it).

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
