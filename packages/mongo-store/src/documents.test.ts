import { BSON } from "mongodb";
import { describe, expect, it } from "vitest";
import type { ApiKeyRecord, AuditRecord, JwkRecord, UserRecord } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import {
  accountFromDoc,
  accountToDoc,
  apiKeyFromDoc,
  apiKeyToDoc,
  auditFromDoc,
  auditToDoc,
  counterFromDoc,
  jwkFromDoc,
  jwkToDoc,
  patchToSet,
  sessionFromDoc,
  sessionToDoc,
  userFromDoc,
  userToDoc,
  verificationFromDoc,
  verificationToDoc,
} from "./documents.ts";

// Through the driver's own BSON codec, as a write followed by a read would take a document.
const throughBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc)) as T;

const user: UserRecord = fixtures.user({
  username: "ada",
  image: null,
  metadata: { plan: "pro", nested: { a: [1, 2.5, null, "x"] }, empty: {} },
});
const key: ApiKeyRecord = fixtures.apiKey(user.id, {
  remaining: 2 ** 40,
  rateLimitMax: 5,
  rateLimitWindowMs: 60_000,
  requestCount: 3,
  windowStart: fixtures.at(1),
  lastUsedAt: fixtures.at(2),
  expiresAt: fixtures.at(3),
});
const jwk: JwkRecord = {
  id: "jwk_1",
  generation: 7,
  alg: "EdDSA",
  publicKey: '{"kty":"OKP"}',
  privateKey: "enc",
  createdAt: fixtures.T0,
  retiredAt: fixtures.at(999),
};
const audit: AuditRecord = {
  id: "au_1",
  type: "UserSignedIn",
  userId: user.id,
  identifier: null,
  ip: "198.51.100.1",
  userAgent: "ua",
  at: fixtures.at(123),
  data: { method: "otp", n: 1 },
};

describe("documents", () => {
  it("every record survives record -> document -> BSON -> document -> record exactly", () => {
    const s = fixtures.session(user.id);
    const a = fixtures.account(user.id);
    const v = fixtures.verification({ userId: user.id, payload: "new@example.com", attemptCount: 2 });
    expect(userFromDoc(throughBson(userToDoc(user)))).toEqual(user);
    expect(sessionFromDoc(throughBson(sessionToDoc(s)))).toEqual(s);
    expect(accountFromDoc(throughBson(accountToDoc(a)))).toEqual(a);
    expect(verificationFromDoc(throughBson(verificationToDoc(v)))).toEqual(v);
    expect(apiKeyFromDoc(throughBson(apiKeyToDoc(key)))).toEqual(key);
    expect(jwkFromDoc(throughBson(jwkToDoc(jwk)))).toEqual(jwk);
    expect(auditFromDoc(throughBson(auditToDoc(audit)))).toEqual(audit);
  });

  it("stores the id as a string _id, dates as BSON dates and JSON as subdocuments", () => {
    const doc = userToDoc(user);
    expect(doc._id).toBe(user.id);
    expect("id" in doc).toBe(false);
    const raw = throughBson(doc) as unknown as Record<string, unknown>;
    expect(raw.createdAt).toBeInstanceOf(Date);
    expect((raw.createdAt as Date).getTime()).toBe(user.createdAt.getTime());
    expect(raw.metadata).toEqual(user.metadata);
    expect(apiKeyToDoc(key).permissions).toEqual({ files: ["read", "write"] });
  });

  it("round-trips rememberMe, and reads a session stored before the field existed as remembered", () => {
    const short = fixtures.session(user.id, { rememberMe: false });
    expect(sessionFromDoc(throughBson(sessionToDoc(short))).rememberMe).toBe(false);
    const { rememberMe: _, ...older } = sessionToDoc(fixtures.session(user.id));
    expect(sessionFromDoc(older as never).rememberMe).toBe(true);
  });

  it("keeps millisecond precision", () => {
    const precise = fixtures.session(user.id, { expiresAt: new Date(Date.UTC(2026, 4, 1, 0, 0, 0, 987)) });
    expect(sessionFromDoc(throughBson(sessionToDoc(precise))).expiresAt.getTime()).toBe(precise.expiresAt.getTime());
  });

  it("drops fields a document has beyond the record's, and never copies them into a document", () => {
    const doc = { ...userToDoc(user), legacyField: 1 };
    expect(userFromDoc(doc)).toEqual(user);
    expect(Object.keys(userToDoc({ ...user, extra: true } as UserRecord))).not.toContain("extra");
  });

  it("reads a user document written before appMetadata existed as appMetadata {}", () => {
    const { appMetadata: _gone, ...old } = userToDoc(user);
    expect(userFromDoc(throughBson(old as typeof old & { appMetadata: never }))).toEqual({ ...user, appMetadata: {} });
  });

  it("round-trips a linked social account, and reads an account written before them with the social fields null", () => {
    const linked = fixtures.socialAccount("u_1", { refreshTokenExpiresAt: new Date(1_767_225_600_123) });
    expect(accountFromDoc(throughBson(accountToDoc(linked)))).toEqual(linked);
    const password = fixtures.account("u_1");
    const { accountId: _a, accessToken: _b, refreshToken: _c, idToken: _d, scope: _e, ...old } = accountToDoc(password);
    const { accessTokenExpiresAt: _f, refreshTokenExpiresAt: _g, ...older } = old;
    expect(accountFromDoc(throughBson(older as never))).toEqual(password);
  });

  it("maps a counter's BSON date back to milliseconds", () => {
    expect(counterFromDoc(throughBson({ _id: "c", count: 3, resetAt: new Date(1_767_225_600_123) }))).toEqual({
      count: 3,
      resetAt: 1_767_225_600_123,
    });
  });

  it("turns a patch into $set: undefined keeps, null clears, empty is null, ids are refused", () => {
    expect(patchToSet({ name: null, image: undefined, emailVerified: true })).toEqual({
      name: null,
      emailVerified: true,
    });
    expect(patchToSet({ name: undefined })).toBeNull();
    expect(patchToSet({})).toBeNull();
    expect(() => patchToSet({ id: "other" })).toThrow(TypeError);
  });

  it("reads a key document of the previous release (no lock, server metadata, refill or reroll fields) with defaults", () => {
    const {
      locked: _l,
      serverMetadata: _s,
      refillAmount: _a,
      refillIntervalMs: _i,
      lastRefillAt: _r,
      previousKeyHash: _p,
      previousKeyExpiresAt: _e,
      rerolledAt: _d,
      ...old
    } = apiKeyToDoc(key);
    expect(apiKeyFromDoc(throughBson(old as ReturnType<typeof apiKeyToDoc>))).toEqual({
      ...key,
      locked: false,
      serverMetadata: {},
      refillAmount: null,
      refillIntervalMs: null,
      lastRefillAt: null,
      previousKeyHash: null,
      previousKeyExpiresAt: null,
      rerolledAt: null,
    });
  });

  it("a verification's record id is its rid; a row written before rid existed reads its _id", () => {
    const v = fixtures.verification();
    expect(verificationToDoc(v)).toMatchObject({ _id: v.id, rid: v.id });
    const { rid: _, ...legacy } = verificationToDoc(v);
    expect(verificationFromDoc(legacy)).toEqual(v);
    expect(verificationFromDoc({ ...legacy, rid: "v_newer" })).toEqual({ ...v, id: "v_newer" });
  });
});
