/** Metadata and permission objects are stored as JSON. */
export type JsonObject = { [key: string]: unknown };

/** `resource -> actions`, e.g. `{ files: ["read", "write"] }`. */
export type Permissions = Record<string, string[]>;

export interface UserRecord {
  id: string;
  /** Trimmed, lower-cased. Unique. */
  email: string;
  emailVerified: boolean;
  name: string | null;
  image: string | null;
  /** Unique when set. Stored lower-cased. */
  username: string | null;
  /** The user's own data: writable by the user (`PATCH /user`). Never a place for roles or entitlements. */
  metadata: JsonObject;
  /** Server-only data (roles, plan, entitlements): readable in the user view, written only by trusted server code. */
  appMetadata: JsonObject;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Banned by an admin (`admin()`): while the ban lasts (until `banExpires`, for ever when null) no session is
   * created for the user, by any way of signing in, and none of theirs is accepted.
   */
  banned: boolean;
  /** Why, as the admin wrote it: shown to admins, never to the user. */
  banReason: string | null;
  banExpires: Date | null;
}

export interface SessionRecord {
  id: string;
  userId: string;
  /** SHA-256 of the session token, base64url. The token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  ip: string | null;
  userAgent: string | null;
  /**
   * False for a "remember me: no" sign-in: the session lives at most `session.shortExpiresIn`, never slides past
   * it, and its cookie has no `Max-Age` (it ends with the browser).
   */
  rememberMe: boolean;
  /** The admin (a user id) who started this session by impersonating its user (`admin()`); null for the user's own. */
  impersonatedBy: string | null;
  /**
   * The organization this session acts for (`organizations()`: `POST /organization/set-active`); null or absent
   * when none. Written only through `OrganizationStore.setActive`, which checks the membership in the same step.
   */
  activeOrganizationId?: string | null;
}

/** `credential` holds a password; `EMAIL_OTP` is created by OTP sign-in. */
export type ProviderId = "credential" | "EMAIL_OTP" | (string & {});

export interface AccountRecord {
  id: string;
  userId: string;
  providerId: ProviderId;
  /** PHC string (argon2id) for `credential` accounts, else null. */
  passwordHash: string | null;
  /**
   * The provider's subject for a linked social account (OpenID Connect `sub`, GitHub's numeric user id), else null.
   * Unique with `providerId`: one provider identity belongs to one user.
   */
  accountId: string | null;
  /** The provider's access token, sealed (AES-256-GCM under a key derived from the auth secret); null when none. */
  accessToken: string | null;
  /** The provider's refresh token, sealed as `accessToken`; null when none. */
  refreshToken: string | null;
  /** The provider's ID token, sealed as `accessToken`; null when none. */
  idToken: string | null;
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  /** The scopes the provider granted, space-separated; null when it did not say. */
  scope: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A one-time secret: an OTP, a link token (email verification, password reset, account deletion).
 * `identifier` binds it to a purpose and target, e.g. `otp:sign-in:ada@example.com`.
 */
export interface VerificationRecord {
  id: string;
  identifier: string;
  /** SHA-256 of the plain code or token, base64url. */
  valueHash: string;
  attemptCount: number;
  expiresAt: Date;
  createdAt: Date;
  /** The user the secret was issued for, when known (deleted with the user). */
  userId: string | null;
  /** Extra non-secret data, e.g. the new email of an email change. */
  payload: string | null;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string | null;
  prefix: string;
  /** First characters of the key (prefix included), for display. */
  start: string;
  /** SHA-256 of the key, base64url. Unique. */
  keyHash: string;
  enabled: boolean;
  /**
   * True when trusted code (`auth.api.updateApiKey`) disabled the key: its owner cannot enable it again over HTTP
   * (403 KEY_LOCKED); only `auth.api` unlocks it.
   */
  locked: boolean;
  /** The owner's own data: writable over HTTP. */
  metadata: JsonObject;
  /** Data only trusted code writes (`auth.api`); shown to the owner, never writable over HTTP. */
  serverMetadata: JsonObject;
  permissions: Permissions;
  /** Uses left; null means unlimited. */
  remaining: number | null;
  /** When set (with `refillIntervalMs`), a use that finds the interval passed since `lastRefillAt` resets `remaining` to this. */
  refillAmount: number | null;
  refillIntervalMs: number | null;
  /** When `remaining` was last set back to `refillAmount` (the creation time until the first refill). */
  lastRefillAt: Date | null;
  /** SHA-256 of the value a reroll replaced, still verifying until `previousKeyExpiresAt`; null without a grace. Unique. */
  previousKeyHash: string | null;
  previousKeyExpiresAt: Date | null;
  /** When the key was last rerolled; null when never. */
  rerolledAt: Date | null;
  /** Per-key rate limit: at most `rateLimitMax` uses per `rateLimitWindowMs`; null disables it. */
  rateLimitMax: number | null;
  rateLimitWindowMs: number | null;
  /** Uses in the current window and when the window started (ms epoch as Date). */
  requestCount: number;
  windowStart: Date | null;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * The organization the key acts for (`organizations()`), created by its member `userId`; null for a user's own
   * key. On every verify its permissions are capped by that member's current role there; deleting the
   * organization deletes the key.
   */
  organizationId: string | null;
}

export interface JwkRecord {
  id: string;
  /** Monotonic, unique: concurrent creators of the same generation race on a unique constraint. */
  generation: number;
  alg: string;
  /** Public JWK as JSON. */
  publicKey: string;
  /** Private JWK as JSON, or its AES-256-GCM envelope (see core/jwt). */
  privateKey: string;
  createdAt: Date;
  /** When the key stopped signing (a newer key exists); null while current. */
  retiredAt: Date | null;
}

/**
 * A user's two-factor (TOTP) record: one per user. `enabled` is false from `POST /two-factor/enable` until
 * `POST /two-factor/verify-setup` proves the authenticator app.
 */
export interface TwoFactorRecord {
  userId: string;
  /** The TOTP key, sealed (AES-256-GCM, bound to the user's id): never the plain key. */
  secret: string;
  enabled: boolean;
  /** The time step of the last accepted code: no code of this step or an earlier one is accepted again. */
  lastStep: number | null;
  /** SHA-256 hashes (hex) of the unused single-use recovery codes. */
  recoveryCodes: string[];
  /** Trusted-device cookies issued before this instant are void (sign out everywhere, password reset). */
  trustedAfter: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A user's passkey (a WebAuthn public-key credential, `passkeys()`). `credentialId` is unique over every user.
 */
export interface PasskeyRecord {
  id: string;
  userId: string;
  /** The credential's id as the authenticator gave it, base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last accepted (0 for authenticators that keep none). */
  counter: number;
  /** Transports the browser reported (`internal`, `hybrid`, `usb`, ...). */
  transports: string[];
  /** `"multiDevice"` when the credential may be synced (backup eligible), else `"singleDevice"`. */
  deviceType: "singleDevice" | "multiDevice";
  /** Whether the credential was backed up (synced) at its last use. */
  backedUp: boolean;
  /** The authenticator model's AAGUID (all zeros when the authenticator hides it). */
  aaguid: string;
  /** The user's own label ("MacBook", "YubiKey"); null until named. */
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** An organization (`organizations()`): a workspace or tenant with members. `slug` is unique over every organization. */
export interface OrganizationRecord {
  id: string;
  name: string;
  /** Lower-case letters, digits and dashes; unique. */
  slug: string;
  logo: string | null;
  metadata: JsonObject;
  createdAt: Date;
}

/** A user's membership of an organization: one per organization and user, with one role. */
export interface MemberRecord {
  id: string;
  organizationId: string;
  userId: string;
  /** A role name of `organizations({ roles })` (`owner`, `admin`, `member` by default). */
  role: string;
  createdAt: Date;
}

/** Where an invitation stands: only a `pending` one can be accepted, rejected or canceled. */
export type InvitationStatus = "pending" | "accepted" | "rejected" | "canceled";

/** An invitation of an email address to an organization, with the role the member will get. */
export interface InvitationRecord {
  id: string;
  organizationId: string;
  /** Trimmed, lower-cased. */
  email: string;
  role: string;
  /** The member who sent it (their user id); kept when they leave. */
  inviterId: string;
  status: InvitationStatus;
  expiresAt: Date;
  createdAt: Date;
}

export interface AuditRecord {
  id: string;
  type: string;
  userId: string | null;
  identifier: string | null;
  ip: string | null;
  userAgent: string | null;
  at: Date;
  /** The event's other fields (no secrets), as JSON. */
  data: JsonObject;
}

export interface CounterState {
  count: number;
  /** When the current window ends (ms epoch). */
  resetAt: number;
}

/** A page of a keyset-paginated listing. `cursor` is opaque to callers. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
