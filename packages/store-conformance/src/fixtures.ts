import type {
  AccountRecord,
  ApiKeyRecord,
  PasskeyRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  SessionRecord,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";

let seq = 0;
/** A unique id per fixture (stores must not depend on id shape). */
export const uid = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}_${(seq++).toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

// Whole seconds: every store must round-trip dates at millisecond precision; seconds keep the fixtures readable.
export const T0 = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
export const at = (ms: number) => new Date(T0.getTime() + ms);

export function user(over: Partial<UserRecord> = {}): UserRecord {
  const id = uid("u");
  return {
    id,
    email: `${id}@example.com`,
    emailVerified: false,
    name: "Ada",
    image: null,
    username: null,
    metadata: { theme: "dark", nested: { a: [1, 2] } },
    appMetadata: { role: "member", plan: { tier: "free", seats: [1, 2] } },
    createdAt: T0,
    updatedAt: T0,
    banned: false,
    banReason: null,
    banExpires: null,
    ...over,
  };
}

export function account(userId: string, over: Partial<AccountRecord> = {}): AccountRecord {
  return {
    id: uid("a"),
    userId,
    providerId: "credential",
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
    accountId: null,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** A linked social account: a provider subject and (sealed, here opaque) tokens. */
export function socialAccount(userId: string, over: Partial<AccountRecord> = {}): AccountRecord {
  return account(userId, {
    providerId: "example-id",
    passwordHash: null,
    accountId: uid("sub"),
    accessToken: "v1.aXY.YWNjZXNz",
    refreshToken: "v1.aXY.cmVmcmVzaA",
    idToken: "v1.aXY.aWQ",
    accessTokenExpiresAt: at(3_600_000),
    refreshTokenExpiresAt: null,
    scope: "openid email profile",
    ...over,
  });
}

export function session(userId: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: uid("s"),
    userId,
    tokenHash: uid("th"),
    expiresAt: at(86_400_000),
    createdAt: T0,
    updatedAt: T0,
    ip: "203.0.113.7",
    userAgent: "vitest",
    rememberMe: true,
    impersonatedBy: null,
    activeOrganizationId: null,
    ...over,
  };
}

export function verification(over: Partial<VerificationRecord> = {}): VerificationRecord {
  return {
    id: uid("v"),
    identifier: uid("otp:sign-in:"),
    valueHash: uid("vh"),
    attemptCount: 0,
    expiresAt: at(300_000),
    createdAt: T0,
    userId: null,
    payload: null,
    ...over,
  };
}

export function apiKey(userId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: uid("k"),
    userId,
    name: "ci",
    prefix: "lk_",
    start: "lk_AbCdE",
    keyHash: uid("kh"),
    enabled: true,
    locked: false,
    metadata: { team: "core" },
    serverMetadata: { plan: "pro" },
    permissions: { files: ["read", "write"] },
    remaining: null,
    refillAmount: null,
    refillIntervalMs: null,
    lastRefillAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
    rateLimitMax: null,
    rateLimitWindowMs: null,
    requestCount: 0,
    windowStart: null,
    lastUsedAt: null,
    expiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    organizationId: null,
    ...over,
  };
}

/** A passkey (opaque credential id and key: the store never decodes them). */
export function passkey(userId: string, over: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    id: uid("pk"),
    userId,
    credentialId: uid("cred"),
    publicKey: "pQECAyYgASFYIPr4-public-key",
    counter: 0,
    transports: ["internal", "hybrid"],
    deviceType: "singleDevice",
    backedUp: false,
    aaguid: "00000000-0000-0000-0000-000000000000",
    name: null,
    createdAt: T0,
    lastUsedAt: null,
    ...over,
  };
}

/** An organization with a unique slug. */
export function organization(over: Partial<OrganizationRecord> = {}): OrganizationRecord {
  const id = uid("org");
  return {
    id,
    name: "Acme",
    slug: id.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    logo: null,
    metadata: { plan: "team", seats: [1, 2] },
    createdAt: T0,
    ...over,
  };
}

/** A membership (`member` role unless given). */
export function member(organizationId: string, userId: string, over: Partial<MemberRecord> = {}): MemberRecord {
  return { id: uid("m"), organizationId, userId, role: "member", createdAt: T0, ...over };
}

/** A pending invitation that expires an hour after T0. */
export function invitation(
  organizationId: string,
  inviterId: string,
  over: Partial<InvitationRecord> = {},
): InvitationRecord {
  return {
    id: uid("inv"),
    organizationId,
    email: `${uid("invitee")}@example.com`,
    role: "member",
    inviterId,
    status: "pending",
    expiresAt: at(3_600_000),
    createdAt: T0,
    ...over,
  };
}
