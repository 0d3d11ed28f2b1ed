import { describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { account, apiKey, at, session, uid, user, verification } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

// Values a store could bend on the way through a driver: sub-second instants, JSON text, numbers, Unicode.
const ms = (offset: number) => at(offset + 123);
const awkwardJson = {
  text: 'quote " backslash \\ newline \n tab \t émoji 🔑 日本語',
  numbers: [0, -5, 0.1, 1e-7, Number.MAX_SAFE_INTEGER],
  flags: [true, false, null],
  empty: { object: {}, array: [], string: "" },
  deep: { a: { b: { c: [{ d: "e" }] } } },
};

/** Exact round-trips and extra races, registered inside `runStoreConformance`. */
export function describeRoundTrips(getStore: () => Store): void {
  describe("round trips", () => {
    it("keeps millisecond instants and JSON exactly, in every record that has them", async () => {
      const store = getStore();
      const u = user({ metadata: awkwardJson, createdAt: ms(1), updatedAt: ms(2) });
      const a = account(u.id, { createdAt: ms(3), updatedAt: ms(4) });
      expect(await store.users.create(u, [a])).toEqual({ ok: true, value: u });
      expect(await store.users.findById(u.id)).toEqual(u);
      expect(await store.accounts.listByUser(u.id)).toEqual([a]);
      const s = session(u.id, { expiresAt: ms(5), createdAt: ms(6), updatedAt: ms(7) });
      await store.sessions.create(s);
      expect(await store.sessions.findByTokenHash(s.tokenHash)).toEqual({ session: s, user: u });
      const v = verification({ expiresAt: ms(8), createdAt: ms(9), payload: '{"newEmail":"é@example.com"}' });
      await store.verifications.issue(v);
      expect(await store.verifications.findByIdentifier(v.identifier)).toEqual(v);
    });

    it("keeps millisecond instants and JSON exactly in API keys", async (context) => {
      const store = getStore();
      const apiKeys = portOf(store, "apiKeys", context);
      const u = user();
      await store.users.create(u, []);
      const k = apiKey(u.id, {
        metadata: awkwardJson,
        serverMetadata: awkwardJson,
        locked: true,
        enabled: false,
        permissions: { "files:*": ["read", "write"], empty: [] },
        remaining: 7,
        refillAmount: 100,
        // Past the 24.8 days a 32-bit millisecond column holds.
        refillIntervalMs: 31 * 86_400_000,
        lastRefillAt: ms(14),
        previousKeyHash: uid("prev"),
        previousKeyExpiresAt: ms(15),
        rerolledAt: ms(16),
        rateLimitMax: 3,
        rateLimitWindowMs: 30 * 86_400_000,
        requestCount: 2,
        windowStart: ms(10),
        lastUsedAt: ms(11),
        expiresAt: ms(86_400_000),
        createdAt: ms(12),
        updatedAt: ms(13),
      });
      await apiKeys.create(k);
      expect(await apiKeys.findById(k.id)).toEqual(k);
    });

    it("keeps millisecond instants exactly in signing keys", async (context) => {
      const jwks = portOf(getStore(), "jwks", context);
      const jwk = {
        id: uid("jwk"),
        generation: 3_000_000 + Math.floor(Math.random() * 1_000_000),
        alg: "ES256",
        publicKey: '{"kty":"EC"}',
        privateKey: "enc:v1",
        createdAt: ms(14),
        retiredAt: null,
      };
      await jwks.insert(jwk);
      expect((await jwks.list()).find((j) => j.id === jwk.id)).toEqual(jwk);
    });

    it("keeps millisecond instants and JSON exactly in audit events", async (context) => {
      const audit = portOf(getStore(), "audit", context);
      const userId = uid("u");
      const event = {
        id: uid("au"),
        type: "ApiKeyCreated",
        userId,
        identifier: null,
        ip: "2001:db8::1",
        userAgent: null,
        at: ms(15),
        data: awkwardJson,
      };
      await audit.append(event);
      expect((await audit.list({ userId, limit: 10, cursor: null })).items).toEqual([event]);
    });

    it("an empty patch changes nothing and still answers with the record", async () => {
      const store = getStore();
      const u = user();
      await store.users.create(u, []);
      expect(await store.users.update(u.id, {})).toEqual({ ok: true, value: u });
    });

    it("an empty API key patch changes nothing and still answers with the key", async (context) => {
      const store = getStore();
      const apiKeys = portOf(store, "apiKeys", context);
      const u = user();
      await store.users.create(u, []);
      const k = apiKey(u.id);
      await apiKeys.create(k);
      expect(await apiKeys.update(k.id, u.id, {})).toEqual(k);
    });

    it("20 parallel issues for one identifier leave exactly one row (each send rotates)", async () => {
      const store = getStore();
      const identifier = uid("otp:sign-in:");
      const rows = Array.from({ length: 20 }, () => verification({ identifier }));
      await Promise.all(rows.map((r) => store.verifications.issue(r)));
      const kept = await store.verifications.findByIdentifier(identifier);
      expect(rows).toContainEqual(kept);
      const findings = await Promise.all(rows.map((r) => store.verifications.findByValueHash(r.valueHash)));
      expect(findings.filter((f) => f !== null)).toEqual([kept]);
      expect(await store.verifications.deleteByIdentifier(identifier)).toBe(1);
    });
  });
}
