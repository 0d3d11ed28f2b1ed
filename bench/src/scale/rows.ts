import { createHash } from "node:crypto";

/**
 * Deterministic rows for the scale seed. Every value derives from the row's index, so a test (or a scenario) can
 * recompute the plain session token or API key of row `i` and look it up through the library's own code. Ids
 * and secrets start with noise, so they land all over the indexes as random ids and tokens do in production.
 */

/** How many rows of each kind a scale seed writes. */
export interface ScaleSizes {
  users: number;
  sessions: number;
  apiKeys: number;
  /** Latchkey only: Better Auth has no audit table. */
  audit: number;
}

/** The table sizes of a scale run, as a function of the user count (1M users: 1M sessions, 100k keys, 1M audit rows). */
export function sizesFor(users: number): ScaleSizes {
  return { users, sessions: users, apiKeys: Math.max(1, Math.floor(users / 10)), audit: users };
}

/** Every tenth session and every tenth API key is expired, so the sweeps have real work at scale. */
export const EXPIRED_EVERY = 10;
/** Every third API key (that is not expired) has a quota. */
const QUOTA_EVERY = 3;

const digest = (text: string) => createHash("sha256").update(text).digest();
const b64url = (bytes: Buffer) => bytes.toString("base64url");
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Cheap deterministic noise (murmur3's 32-bit finaliser over kind, row and word): the seed writes millions of ids
// and secrets, and a hash per value would make generating them slower than writing them.
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const seeds = new Map<string, number>();
const kindSeed = (kind: string) => {
  let seed = seeds.get(kind);
  if (seed === undefined) seeds.set(kind, (seed = digest(kind).readUInt32LE(0)));
  return seed;
};

/**
 * `length` bytes for row `i` of `kind`: noise first (so values spread over an index as random ones do), then the
 * row number (big-endian), which makes every value of a kind unique.
 */
function rowBytes(kind: string, i: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  const seed = kindSeed(kind);
  const noise = length - 4;
  for (let j = 0; j < noise; j += 4) {
    const word = fmix32(seed ^ Math.imul(i, 0x9e3779b1) ^ Math.imul(j + 1, 0x27d4eb2f));
    for (let b = 0; b < 4 && j + b < noise; b += 1) out[j + b] = (word >>> (8 * b)) & 0xff;
  }
  out.writeUInt32BE(i >>> 0, noise);
  return out;
}

/** `length` base62 characters for row `i` of `kind`: noise, then the row number in base62 (6 characters). */
function base62(kind: string, i: number, length: number): string {
  const bytes = rowBytes(kind, i, length - 6 + 4);
  let out = "";
  for (let j = 0; j < length - 6; j += 1) out += BASE62[(bytes[j] as number) % 62];
  let n = i;
  let tail = "";
  for (let j = 0; j < 6; j += 1) {
    tail = BASE62[n % 62] + tail;
    n = Math.floor(n / 62);
  }
  return out + tail;
}

/** SHA-256, base64url without padding: how both libraries store session tokens (Latchkey) and API keys (both). */
export const sha256url = (text: string) => b64url(digest(text));

export const seedEmail = (lib: "lk" | "ba", i: number) => `scale-${lib}-${i}@seed.bench`;

// ---------------------------------------------------------------- Latchkey

/** The plain session token of Latchkey seed session `i`: 32 bytes, base64url (43 characters), like a real one. */
export const latchkeySessionToken = (i: number) => b64url(rowBytes("lk-session-token", i, 32));
/** The plain API key of Latchkey seed key `i`: default prefix + 40 base62 characters. */
export const latchkeyApiKey = (i: number) => `lk_${base62("lk-api-key", i, 40)}`;
const lkId = (kind: string, i: number) => b64url(rowBytes(`lk-${kind}`, i, 16));

export interface LatchkeyRows {
  users: Array<Record<string, unknown>>;
  sessions: Array<Record<string, unknown>>;
  apiKeys: Array<Record<string, unknown>>;
  auditEvents: Array<Record<string, unknown>>;
}

/** Rows `from..to` of one Latchkey table, as `@latchkey/core` records (the store schema's property names). */
export function latchkeyRows(
  table: keyof LatchkeyRows,
  from: number,
  to: number,
  sizes: ScaleSizes,
  now: number,
): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const created = new Date(now - 30 * 86_400_000);
  for (let i = from; i < to; i += 1) {
    if (table === "users") {
      rows.push({
        id: lkId("user", i),
        email: seedEmail("lk", i),
        emailVerified: true,
        name: `Seed User ${i}`,
        image: null,
        username: null,
        metadata: {},
        appMetadata: {},
        createdAt: created,
        updatedAt: created,
        banned: false,
        banReason: null,
        banExpires: null,
      });
    } else if (table === "sessions") {
      const expired = i % EXPIRED_EVERY === EXPIRED_EVERY - 1;
      rows.push({
        id: lkId("session", i),
        userId: lkId("user", i % sizes.users),
        tokenHash: sha256url(latchkeySessionToken(i)),
        expiresAt: new Date(now + (expired ? -86_400_000 : 7 * 86_400_000)),
        createdAt: created,
        updatedAt: created,
        ip: "203.0.113.7",
        userAgent: "scale-seed/1.0",
      });
    } else if (table === "apiKeys") {
      const key = latchkeyApiKey(i);
      const expired = i % EXPIRED_EVERY === EXPIRED_EVERY - 1;
      rows.push({
        id: lkId("api-key", i),
        userId: lkId("user", i % sizes.users),
        name: `seed key ${i}`,
        prefix: "lk_",
        start: key.slice(0, 8),
        keyHash: sha256url(key),
        enabled: true,
        metadata: {},
        permissions: {},
        remaining: !expired && i % QUOTA_EVERY === 0 ? 1_000_000 : null,
        rateLimitMax: null,
        rateLimitWindowMs: null,
        requestCount: 0,
        windowStart: null,
        lastUsedAt: null,
        expiresAt: expired ? new Date(now - 86_400_000) : i % 2 === 0 ? null : new Date(now + 90 * 86_400_000),
        createdAt: created,
        updatedAt: created,
      });
    } else {
      rows.push({
        id: lkId("audit", i),
        type: i % 3 === 0 ? "SignedIn" : i % 3 === 1 ? "SessionRevoked" : "ApiKeyCreated",
        userId: lkId("user", i % sizes.users),
        identifier: null,
        ip: "203.0.113.7",
        userAgent: "scale-seed/1.0",
        at: new Date(now - 30 * 86_400_000 + (i % 2_592_000) * 1000),
        data: {},
      });
    }
  }
  return rows;
}

/** The Latchkey id of seed API key `i`. */
export const latchkeyApiKeyId = (i: number) => lkId("api-key", i);

/** The Latchkey id of seed user `i` (the owner of session and key `i` when i < users). */
export const latchkeyUserId = (i: number) => lkId("user", i);

// ---------------------------------------------------------------- Better Auth

/** Better Auth's session token of seed session `i`: 32 alphanumeric characters, as its `generateId(32)`. */
export const betterAuthSessionToken = (i: number) => base62("ba-session-token", i, 32);
/** Better Auth's plain API key of seed key `i`: 64 characters from its default alphabet, no prefix (its default). */
export const betterAuthApiKey = (i: number) => base62("ba-api-key", i, 64);
const baId = (kind: string, i: number) => base62(`ba-${kind}`, i, 32);
export const betterAuthUserId = (i: number) => baId("user", i);
export const betterAuthApiKeyId = (i: number) => baId("api-key", i);

/** Rows of one Better Auth model, keyed by the column names its `getSchema()` gives (its defaults). */
export function betterAuthRows(
  model: "user" | "session" | "apikey",
  from: number,
  to: number,
  sizes: ScaleSizes,
  now: number,
): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const created = new Date(now - 30 * 86_400_000);
  for (let i = from; i < to; i += 1) {
    if (model === "user") {
      rows.push({
        id: baId("user", i),
        name: `Seed User ${i}`,
        email: seedEmail("ba", i),
        emailVerified: true,
        image: null,
        createdAt: created,
        updatedAt: created,
      });
    } else if (model === "session") {
      const expired = i % EXPIRED_EVERY === EXPIRED_EVERY - 1;
      rows.push({
        id: baId("session", i),
        expiresAt: new Date(now + (expired ? -86_400_000 : 7 * 86_400_000)),
        token: betterAuthSessionToken(i),
        createdAt: created,
        updatedAt: created,
        ipAddress: "203.0.113.7",
        userAgent: "scale-seed/1.0",
        userId: baId("user", i % sizes.users),
      });
    } else {
      const key = betterAuthApiKey(i);
      const expired = i % EXPIRED_EVERY === EXPIRED_EVERY - 1;
      rows.push({
        id: baId("api-key", i),
        configId: "default",
        name: `seed key ${i}`,
        start: key.slice(0, 6),
        referenceId: baId("user", i % sizes.users),
        prefix: null,
        key: sha256url(key),
        refillInterval: null,
        refillAmount: null,
        lastRefillAt: null,
        enabled: true,
        rateLimitEnabled: false,
        rateLimitTimeWindow: 86_400_000,
        rateLimitMax: 10,
        requestCount: 0,
        remaining: !expired && i % QUOTA_EVERY === 0 ? 1_000_000 : null,
        lastRequest: null,
        expiresAt: expired ? new Date(now - 86_400_000) : i % 2 === 0 ? null : new Date(now + 90 * 86_400_000),
        createdAt: created,
        updatedAt: created,
        permissions: null,
        metadata: null,
      });
    }
  }
  return rows;
}
