import { memoryStore } from "@latchkey/memory-store";
import { createTestClock } from "../src/ports/clock.ts";
import type { ApiKeyRecord, SessionRecord, UserRecord } from "../src/ports/records.ts";
import type { FullStore } from "../src/ports/store.ts";
import type { Logger } from "../src/logger/logger.ts";
import type { CacheCarrier, CacheCarrierListener } from "../src/cache/carrier.ts";
import { cachedStore } from "../src/cache/cached-store.ts";
import { LookupCache } from "../src/cache/lookup-cache.ts";

// For the lookup cache's tests (src/cache/*.test.ts): records, a carrier the test drives, and a cached memory store.

export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
export const T0 = Date.UTC(2026, 5, 1);

/** A carrier the test drives: it records publications and reports up/down when told. */
export function manualCarrier() {
  let listener: CacheCarrierListener | null = null;
  const published: string[] = [];
  const carrier: CacheCarrier = {
    start(l) {
      listener = l;
    },
    async publish(payload) {
      published.push(payload);
    },
    async close() {},
  };
  return {
    carrier,
    published,
    up: () => listener?.up(),
    down: () => listener?.down("test"),
    deliver: (payload: string) => listener?.message(payload),
  };
}

export function user(id: string): UserRecord {
  return {
    id,
    email: `${id}@example.com`,
    emailVerified: false,
    name: null,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    banned: false,
    banReason: null,
    banExpires: null,
  };
}

export function session(id: string, userId: string): SessionRecord {
  return {
    id,
    userId,
    tokenHash: `hash-${id}`,
    expiresAt: new Date(T0 + 86_400_000),
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    ip: null,
    userAgent: null,
    rememberMe: true,
    impersonatedBy: null,
  };
}

export function apiKey(id: string, userId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const at = new Date(T0);
  return {
    id,
    userId,
    keyHash: `kh-${id}`,
    start: "lk_12345",
    prefix: "lk_",
    name: null,
    enabled: true,
    locked: false,
    permissions: {},
    metadata: {},
    serverMetadata: {},
    remaining: null,
    refillAmount: null,
    refillIntervalMs: null,
    lastRefillAt: null,
    rateLimitMax: null,
    rateLimitWindowMs: null,
    windowStart: null,
    requestCount: 0,
    expiresAt: null,
    lastUsedAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
    createdAt: at,
    updatedAt: at,
    organizationId: null,
    ...over,
  };
}

export async function setup(options: { ttlMs?: number; maxEntries?: number; base?: FullStore } = {}) {
  const base = options.base ?? memoryStore();
  const clock = createTestClock(T0);
  const manual = manualCarrier();
  const cache = new LookupCache(
    { ttlMs: options.ttlMs ?? 30_000, maxEntries: options.maxEntries ?? 100, carrier: manual.carrier },
    clock,
    quiet,
  );
  cache.start();
  manual.up();
  const store = cachedStore(base, cache);
  await base.users.create(user("u1"), []);
  await base.sessions.create(session("s1", "u1"));
  return { base, store, cache, clock, manual };
}
