import type {
  AccountRecord,
  ApiKeyRecord,
  AuditRecord,
  CounterState,
  JwkRecord,
  PasskeyRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  SessionRecord,
  TwoFactorRecord,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";

/** A record as stored: its `id` becomes the string `_id`; dates stay BSON dates, JSON fields stay subdocuments. */
export type Doc<R extends { id: string }> = Omit<R, "id"> & { _id: string };

export type UserDoc = Doc<UserRecord>;
export type SessionDoc = Doc<SessionRecord>;
export type AccountDoc = Doc<AccountRecord>;
/**
 * `rid` is the record's id: a row's `_id` never changes, but `verifications.issue` upserts the row of an
 * identifier in place, so each issue gives the row a new `rid` (a stale id of the previous code matches nothing).
 * Rows written before `rid` existed have none and are matched by `_id`.
 */
export type VerificationDoc = Doc<VerificationRecord> & { rid?: string };
export type ApiKeyDoc = Doc<ApiKeyRecord>;
export type JwkDoc = Doc<JwkRecord>;
export type AuditDoc = Doc<AuditRecord>;
export type PasskeyDoc = Doc<PasskeyRecord>;
/**
 * An organization with two counters the port keeps beside it: how many members and how many owners it has. The
 * last-owner rule and the membership limit are conditional updates of this one document (atomic without
 * transactions); each counter moves before the membership it accounts for, in the direction that can only refuse
 * more, never less, while a write is under way.
 */
export type OrganizationDoc = Doc<OrganizationRecord> & { memberCount: number; ownerCount: number };
export type MemberDoc = Doc<MemberRecord>;
export type InvitationDoc = Doc<InvitationRecord>;
/** A user's two-factor record: one per user, so the user's id is the `_id`. */
export type TwoFactorDoc = Omit<TwoFactorRecord, "userId"> & { _id: string };

/** A fixed-window counter; `resetAt` is a BSON date so a TTL index can clean ended windows up. */
export interface CounterDoc {
  _id: string;
  count: number;
  resetAt: Date;
}

/**
 * The stored fields of a record, other than `id`. A `Record` over `keyof` makes the compiler reject a missing or
 * unknown field, so a field added to a record in core fails the build here instead of silently not round-tripping.
 */
type FieldSet<R> = Record<Exclude<keyof R, "id">, true>;

const userFields: FieldSet<UserRecord> = {
  email: true,
  emailVerified: true,
  name: true,
  image: true,
  username: true,
  metadata: true,
  appMetadata: true,
  createdAt: true,
  updatedAt: true,
  banned: true,
  banReason: true,
  banExpires: true,
};
const sessionFields: FieldSet<SessionRecord> = {
  userId: true,
  tokenHash: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
  ip: true,
  userAgent: true,
  rememberMe: true,
  impersonatedBy: true,
  activeOrganizationId: true,
};
const accountFields: FieldSet<AccountRecord> = {
  userId: true,
  providerId: true,
  passwordHash: true,
  accountId: true,
  accessToken: true,
  refreshToken: true,
  idToken: true,
  accessTokenExpiresAt: true,
  refreshTokenExpiresAt: true,
  scope: true,
  createdAt: true,
  updatedAt: true,
};
const verificationFields: FieldSet<VerificationRecord> = {
  identifier: true,
  valueHash: true,
  attemptCount: true,
  expiresAt: true,
  createdAt: true,
  userId: true,
  payload: true,
};
const apiKeyFields: FieldSet<ApiKeyRecord> = {
  userId: true,
  name: true,
  prefix: true,
  start: true,
  keyHash: true,
  enabled: true,
  locked: true,
  metadata: true,
  serverMetadata: true,
  permissions: true,
  remaining: true,
  refillAmount: true,
  refillIntervalMs: true,
  lastRefillAt: true,
  previousKeyHash: true,
  previousKeyExpiresAt: true,
  rerolledAt: true,
  rateLimitMax: true,
  rateLimitWindowMs: true,
  requestCount: true,
  windowStart: true,
  lastUsedAt: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
  organizationId: true,
};
const jwkFields: FieldSet<JwkRecord> = {
  generation: true,
  alg: true,
  publicKey: true,
  privateKey: true,
  createdAt: true,
  retiredAt: true,
};
const twoFactorFields: Record<Exclude<keyof TwoFactorRecord, "userId">, true> = {
  secret: true,
  enabled: true,
  lastStep: true,
  recoveryCodes: true,
  trustedAfter: true,
  createdAt: true,
  updatedAt: true,
};
const organizationFields: FieldSet<OrganizationRecord> = {
  name: true,
  slug: true,
  logo: true,
  metadata: true,
  createdAt: true,
};
const memberFields: FieldSet<MemberRecord> = { organizationId: true, userId: true, role: true, createdAt: true };
const invitationFields: FieldSet<InvitationRecord> = {
  organizationId: true,
  email: true,
  role: true,
  inviterId: true,
  status: true,
  expiresAt: true,
  createdAt: true,
};
const passkeyFields: FieldSet<PasskeyRecord> = {
  userId: true,
  credentialId: true,
  publicKey: true,
  counter: true,
  transports: true,
  deviceType: true,
  backedUp: true,
  aaguid: true,
  name: true,
  createdAt: true,
  lastUsedAt: true,
};
const auditFields: FieldSet<AuditRecord> = {
  type: true,
  userId: true,
  identifier: true,
  ip: true,
  userAgent: true,
  at: true,
  data: true,
};

// Copies exactly the listed fields, so a stray field in a document (or a record) never leaks across.
function pick(source: object, fields: object): Record<string, unknown> {
  const from = source as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(fields)) out[field] = from[field];
  return out;
}

const toDoc = <R extends { id: string }>(record: R, fields: FieldSet<R>): Doc<R> =>
  ({ _id: record.id, ...pick(record, fields) }) as Doc<R>;

const fromDoc = <R extends { id: string }>(doc: Doc<R>, fields: FieldSet<R>): R =>
  ({ id: doc._id, ...pick(doc, fields) }) as R;

export const userToDoc = (r: UserRecord): UserDoc => toDoc(r, userFields);
// A user written before `appMetadata` (or a ban) existed has no such field: it reads as `{}` (not banned), with no
// migration step.
export const userFromDoc = (d: UserDoc): UserRecord => {
  const record = fromDoc(d, userFields);
  return {
    ...record,
    appMetadata: record.appMetadata ?? {},
    banned: record.banned === true,
    banReason: record.banReason ?? null,
    banExpires: record.banExpires ?? null,
  };
};
export const sessionToDoc = (r: SessionRecord): SessionDoc => toDoc(r, sessionFields);
// Sessions stored before `rememberMe` existed were all "remember me" sessions.
// Sessions stored before organizations existed have no active organization.
export const sessionFromDoc = (d: SessionDoc): SessionRecord => ({
  ...fromDoc(d, sessionFields),
  rememberMe: d.rememberMe !== false,
  impersonatedBy: d.impersonatedBy ?? null,
  activeOrganizationId: d.activeOrganizationId ?? null,
});
export const accountToDoc = (r: AccountRecord): AccountDoc => toDoc(r, accountFields);
// An account written before linked identities existed has none of their fields: they read as null.
export const accountFromDoc = (d: AccountDoc): AccountRecord => {
  const record = fromDoc(d, accountFields);
  for (const field of SOCIAL_FIELDS)
    if (record[field] === undefined) (record as unknown as Record<string, unknown>)[field] = null;
  return record;
};
const SOCIAL_FIELDS = [
  "accountId",
  "accessToken",
  "refreshToken",
  "idToken",
  "accessTokenExpiresAt",
  "refreshTokenExpiresAt",
  "scope",
] as const satisfies ReadonlyArray<keyof AccountRecord>;
export const verificationToDoc = (r: VerificationRecord): VerificationDoc => ({
  ...toDoc(r, verificationFields),
  rid: r.id,
});
export const verificationFromDoc = (d: VerificationDoc): VerificationRecord => ({
  ...fromDoc(d, verificationFields),
  id: d.rid ?? d._id,
});
export const apiKeyToDoc = (r: ApiKeyRecord): ApiKeyDoc => toDoc(r, apiKeyFields);
/**
 * A key document written by an earlier release lacks the fields added since (lock, server metadata, refill,
 * reroll): they read as their defaults, so old keys keep working without a data migration.
 */
export const apiKeyFromDoc = (d: ApiKeyDoc): ApiKeyRecord => {
  const r = fromDoc(d, apiKeyFields);
  return {
    ...r,
    locked: r.locked ?? false,
    serverMetadata: r.serverMetadata ?? {},
    refillAmount: r.refillAmount ?? null,
    refillIntervalMs: r.refillIntervalMs ?? null,
    lastRefillAt: r.lastRefillAt ?? null,
    previousKeyHash: r.previousKeyHash ?? null,
    previousKeyExpiresAt: r.previousKeyExpiresAt ?? null,
    rerolledAt: r.rerolledAt ?? null,
    organizationId: r.organizationId ?? null,
  };
};
export const jwkToDoc = (r: JwkRecord): JwkDoc => toDoc(r, jwkFields);
export const jwkFromDoc = (d: JwkDoc): JwkRecord => fromDoc(d, jwkFields);
export const organizationToDoc = (
  r: OrganizationRecord,
  counts: { memberCount: number; ownerCount: number },
): OrganizationDoc => ({
  ...toDoc(r, organizationFields),
  ...counts,
});
export const organizationFromDoc = (d: OrganizationDoc): OrganizationRecord => fromDoc(d, organizationFields);
export const memberToDoc = (r: MemberRecord): MemberDoc => toDoc(r, memberFields);
export const memberFromDoc = (d: MemberDoc): MemberRecord => fromDoc(d, memberFields);
export const invitationToDoc = (r: InvitationRecord): InvitationDoc => toDoc(r, invitationFields);
export const invitationFromDoc = (d: InvitationDoc): InvitationRecord => fromDoc(d, invitationFields);
export const passkeyToDoc = (r: PasskeyRecord): PasskeyDoc => toDoc(r, passkeyFields);
export const passkeyFromDoc = (d: PasskeyDoc): PasskeyRecord => fromDoc(d, passkeyFields);
export const auditToDoc = (r: AuditRecord): AuditDoc => toDoc(r, auditFields);
export const auditFromDoc = (d: AuditDoc): AuditRecord => fromDoc(d, auditFields);

export const counterFromDoc = (d: CounterDoc): CounterState => ({ count: d.count, resetAt: d.resetAt.getTime() });

/**
 * A patch as a `$set` document: `undefined` members are dropped (they mean "keep"), `null` stays (it clears).
 * Returns null for an empty patch, since MongoDB rejects an empty `$set`.
 */
export function patchToSet<P extends object>(patch: P): Partial<P> | null {
  const set: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) if (value !== undefined) set[field] = value;
  if ("id" in set || "_id" in set) throw new TypeError("A patch cannot change a record id");
  return Object.keys(set).length > 0 ? (set as Partial<P>) : null;
}
export const twoFactorToDoc = (r: TwoFactorRecord): TwoFactorDoc =>
  ({ _id: r.userId, ...pick(r, twoFactorFields) }) as TwoFactorDoc;
export const twoFactorFromDoc = (d: TwoFactorDoc): TwoFactorRecord =>
  ({ userId: d._id, ...pick(d, twoFactorFields) }) as TwoFactorRecord;
