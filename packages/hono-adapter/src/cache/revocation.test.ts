import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { hashSecret, type CacheCarrier, type CacheCarrierListener, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { apiKeyRecord, testPostgresUrl } from "@latchkey/test-support";
import { bearer } from "../../test/test-auth.ts";
import { storesForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { send, verify } from "../routes/email-verification/test-fixtures.ts";
import {
  cacheInstances,
  cachedOn,
  listening,
  onA,
  session,
  signIn,
  until,
} from "../../test/cache/revocation-fixture.ts";

// The lookup cache over HTTP on the run's store (memory, libSQL, PostgreSQL): every revocation is refused at
// once on the instance that made it, and on another instance over the same database as soon as its carrier
// delivered the invalidation (the test waits for that delivery, counted in `stats()`, never for a time).
// Its carrier lost (cut by the test, or a LISTEN backend PostgreSQL killed): bypassed, then flushed before use.

const { instance, pair, generationCase } = cacheInstances();

describe(`lookup cache on ${testStoreKind()}`, () => {
  it("answers a signed-out session as signed out at once on the same instance", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token } = await t.signUp("ada@example.com");
    await cachedOn(t, token);
    expect((await t.request("POST", "/sign-out", { headers: bearer(token) })).status).toBe(200);
    expect(await session(t, token)).toBeNull();
  });

  it("generation check: a read that spanned the revocation's arrival is answered once and not kept", async () => {
    await generationCase();
  });

  it("ttl bounds an entry: a change no invalidation announced is seen once ttl (30 s) passed", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token } = await t.signUp("ada@example.com");
    await cachedOn(t, token);
    const found = await t.store.sessions.findByTokenHash(hashSecret(token));
    // Straight in the database, around the cache (as SQL by hand would): nothing is published.
    await t.store.sessions.delete(found?.session.id as string);
    t.clock.advance(29_999);
    expect(await session(t, token)).not.toBeNull();
    t.clock.advance(1);
    expect(await session(t, token)).toBeNull();
  });

  it("a sign-out on A is refused by B", async () => {
    const { a, b } = await pair();
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(token) }));
    expect(await session(b, token)).toBeNull();
  });

  it("revoking every session, a password change and a deletion on A reach B", async () => {
    const { a, b } = await pair();
    const { token, userId } = await a.signUp("ada@example.com");
    const other = await signIn(a, "ada@example.com");
    await cachedOn(b, other);
    await onA(a, b, () =>
      a.request("POST", "/change-password", {
        headers: bearer(token),
        body: { currentPassword: "correct horse battery", newPassword: "a new password", revokeOtherSessions: true },
      }),
    );
    expect(await session(b, other)).toBeNull();

    const third = await signIn(a, "ada@example.com").catch(() => null);
    expect(third).toBeNull(); // the old password no longer signs in
    const fresh = (
      (await (
        await a.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "a new password" } })
      ).json()) as { credentials: { token: string } }
    ).credentials.token;
    await cachedOn(b, fresh);
    await onA(a, b, () => a.auth.api.revokeSessions({ userId }));
    expect(await session(b, fresh)).toBeNull();
    expect(await session(b, token)).toBeNull();

    const last = (
      (await (
        await a.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "a new password" } })
      ).json()) as { credentials: { token: string } }
    ).credentials.token;
    await cachedOn(b, last);
    await onA(a, b, () => a.auth.api.deleteUser(userId));
    expect(await session(b, last)).toBeNull();
  });

  it("a mailbox proof that revokes 320 API keys reaches B (one NOTIFY could not carry it: 8,000 bytes)", async () => {
    const { a, b } = await pair();
    // The pre-registered attacker's session and 320 keys on the victim's address.
    const { token, userId } = await a.signUp("victim@example.com", "attacker chose this one");
    const now = new Date(a.clock.now());
    for (let i = 0; i < 320; i++)
      await a.store.apiKeys.create(
        apiKeyRecord({
          id: `key-${String(i).padStart(3, "0")}-${userId}`,
          userId,
          keyHash: hashSecret(`attacker-key-${i}-${userId}`),
          createdAt: now,
          updatedAt: now,
        }),
      );
    await cachedOn(b, token);
    await send(a, "victim@example.com");
    await onA(a, b, async () => {
      expect((await verify(a, "victim@example.com", a.auth.getOtp("victim@example.com") as string)).status).toBe(200);
    });
    expect(a.auth.cache?.stats()).toMatchObject({ bypassed: false, carrierLosses: 0 });
    expect(await session(b, token)).toBeNull();
  });

  it("a user update on A shows on B's next read", async () => {
    const { a, b } = await pair();
    const { token, userId } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await onA(a, b, () => a.auth.api.updateUser(userId, { appMetadata: { role: "admin" } }));
    expect((await session(b, token))?.user.appMetadata).toEqual({ role: "admin" });
  });

  it("an API key disabled, rerolled or deleted on A is refused by B", async () => {
    const { a, b } = await pair();
    const { userId } = await a.signUp("ada@example.com");
    const verify = async (key: string) =>
      (await (await b.request("POST", "/api-key/verify", { body: { key } })).json()) as {
        valid: boolean;
        error?: { code: string };
      };
    const cachedKey = async (key: string) => {
      expect((await verify(key)).valid).toBe(true);
      const hits = b.auth.cache?.stats().hits ?? 0;
      expect((await verify(key)).valid).toBe(true);
      expect(b.auth.cache?.stats().hits).toBeGreaterThan(hits);
    };
    const api = a.auth.api as unknown as {
      createApiKey(i: { userId: string }): Promise<{ key: string; apiKey: { id: string } }>;
      updateApiKey(i: { keyId: string; enabled: boolean }): Promise<unknown>;
      rerollApiKey(i: { keyId: string; gracePeriod: null }): Promise<{ key: string }>;
      deleteApiKey(i: { keyId: string }): Promise<unknown>;
    };
    const first = await api.createApiKey({ userId });
    await cachedKey(first.key);
    await onA(a, b, () => api.updateApiKey({ keyId: first.apiKey.id, enabled: false }));
    expect(await verify(first.key)).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });

    const second = await api.createApiKey({ userId });
    await cachedKey(second.key);
    let rerolled = { key: "" };
    await onA(a, b, async () => {
      rerolled = await api.rerollApiKey({ keyId: second.apiKey.id, gracePeriod: null });
    });
    expect((await verify(second.key)).valid).toBe(false);
    await cachedKey(rerolled.key);
    await onA(a, b, () => api.deleteApiKey({ keyId: second.apiKey.id }));
    expect((await verify(rerolled.key)).valid).toBe(false);
  });
});

/** The store's carrier behind a switch: `cut()` loses the connection (down, deliveries dropped), `restore()` ends it. */
function switchable(inner: CacheCarrier) {
  let listener: CacheCarrierListener | null = null;
  let cut = false;
  const carrier: CacheCarrier = {
    start(l) {
      listener = l;
      inner.start({
        message: (payload) => {
          if (!cut) l.message(payload);
        },
        up: () => {
          if (!cut) l.up();
        },
        down: (reason) => l.down(reason),
      });
    },
    publish: (payload) => inner.publish(payload),
    close: () => inner.close(),
  };
  return {
    carrier,
    cut() {
      cut = true;
      listener?.down("cut by the test");
    },
    restore() {
      cut = false;
      listener?.up();
    },
  };
}

describe(`carrier loss on ${testStoreKind()}`, () => {
  it("bypasses the cache while the carrier is lost and flushes it before using it again", async () => {
    const shared = memoryStore();
    const [first, second] = storesForTestRun(2) ?? [shared, shared];
    const a = instance(first as FullStore);
    const line = switchable((second as FullStore).cacheCarrier?.() as CacheCarrier);
    const b = instance(second as FullStore, line.carrier);
    await listening(a);
    await listening(b);
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    line.cut();
    expect(b.auth.cache?.stats()).toMatchObject({ bypassed: true, entries: 0 });
    // Revoked while B hears nothing: B reads the store, never its memory.
    await a.request("POST", "/sign-out", { headers: bearer(token) });
    expect(await session(b, token)).toBeNull();
    const other = await signIn(a, "ada@example.com");
    expect(await session(b, other)).not.toBeNull();
    expect(b.auth.cache?.stats().entries).toBe(0);
    line.restore();
    expect(b.auth.cache?.stats()).toMatchObject({ bypassed: false, entries: 0 });
    await cachedOn(b, other);
  });

  it("PostgreSQL: a LISTEN connection killed by the server is noticed, bypassed, and listened again", async (context) => {
    if (testStoreKind() !== "postgres") context.skip("PostgreSQL's LISTEN connection: runs in the postgres project");
    const [first, second] = storesForTestRun(2) as FullStore[];
    const a = instance(first as FullStore);
    const b = instance(second as FullStore);
    await listening(a);
    await listening(b);
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    // Only this file's instances listen (the cache is off everywhere else), so every such backend is one of ours.
    const admin = postgres(testPostgresUrl(), { max: 1, onnotice: () => undefined });
    try {
      const losses = b.auth.cache?.stats().carrierLosses ?? 0;
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'latchkey-cache'`;
      await until("B notices the lost LISTEN connection", () => (b.auth.cache?.stats().carrierLosses ?? 0) > losses);
      // Signed out while B may not be listening: B must not answer from memory.
      await a.request("POST", "/sign-out", { headers: bearer(token) });
      expect(await session(b, token)).toBeNull();
      await listening(b);
      expect(b.auth.cache?.stats().entries).toBe(0);
      const other = await signIn(a, "ada@example.com");
      await cachedOn(b, other);
      await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(other) }));
      expect(await session(b, other)).toBeNull();
    } finally {
      await admin.end({ timeout: 5 });
    }
  });
});
