import { describe, expect, it } from "vitest";
import { jwt, type FullStore } from "@latchkey/core";
import { storeForTestRun } from "../../../test/test-stores.ts";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts, issueToken, publishedKids, tokenOf } from "../../../test/routes/jwt/test-fixtures.ts";

// Review fixes 14, 18 and 19: what one instance does to the shared JWT keys must never break the others.
// Runs on memory, libSQL and PostgreSQL (per project); instances share one store and one clock.

const DAY = 86_400_000;
const WRONG_SECRET = "a-different-secret-0123456789abcdefghijklmnopqrstuv";

describe("JWT keys shared by several instances", () => {
  it("14: an instance with a wrong secret does not take over the keys when a scheduled rotation falls due", async () => {
    const good = createTestAuth({ plugins: [jwt({ rotationInterval: "1d" })] });
    const wrong = createTestAuth({
      store: good.store,
      clock: good.clock,
      secret: WRONG_SECRET,
      plugins: [jwt({ rotationInterval: "1d" })],
    });
    const { session } = await issueToken(good);
    good.clock.advance(DAY);
    // The misconfigured instance cannot sign, and it creates no key.
    const refused = await wrong.request("POST", "/token", { headers: bearer(session) });
    expect(refused.status).toBe(500);
    expect(((await refused.json()) as { code: string }).code).toBe("JWT_KEY_UNREADABLE");
    expect(await good.store.jwks.list()).toHaveLength(1);
    // The correctly configured instances go on signing, across their own rotation.
    for (const step of [0, 60_000, 120_000, 60_000]) {
      good.clock.advance(step);
      expect((await good.request("POST", "/token", { headers: bearer(session) })).status).toBe(200);
      expect((await wrong.request("POST", "/token", { headers: bearer(session) })).status).toBe(500);
    }
    expect((await good.store.jwks.list()).length).toBeLessThanOrEqual(2);
  });

  it("14: rotateJwks({ revoke: true }) withdraws a compromised key at once: its tokens stop verifying, no grace", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: leaked, session } = await issueToken(t);
    const leakedKid = decodeParts(leaked).header.kid as string;
    const { kid } = await t.auth.api.rotateJwks({ revoke: true });
    expect(kid).not.toBe(leakedKid);
    expect(await publishedKids(t)).toEqual([kid]);
    expect((await t.store.jwks.list()).map((r) => r.id)).toEqual([kid]);
    await expect(t.auth.api.verifyJwt(leaked)).rejects.toMatchObject({ code: "INVALID_JWT" });
    const fresh = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(fresh).header.kid).toBe(kid);
    expect((await t.auth.api.verifyJwt(fresh)).sub).toBeTruthy();
  });

  it("18: a late retire from a slower rotation does not retire a newer key (no instance is left without one)", async () => {
    const inner = storeForTestRun() ?? memoryStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let slowOnce = false;
    // Instance A's store: its rotation's first retireOthers waits until B has rotated past it.
    const slow: FullStore = {
      ...inner,
      jwks: new Proxy(inner.jwks, {
        get: (target, key) =>
          key === "retireOthers"
            ? async (id: string, at: Date) => {
                if (slowOnce) {
                  slowOnce = false;
                  reached();
                  await gate;
                }
                return target.retireOthers(id, at);
              }
            : Reflect.get(target, key),
      }),
    };
    const a = createTestAuth({ store: slow, plugins: [jwt()] });
    const b = createTestAuth({ store: inner, clock: a.clock, plugins: [jwt()] });
    const { session } = await issueToken(a);
    slowOnce = true;
    const slowRotation = a.auth.api.rotateJwks();
    await atGate;
    const { kid: newest } = await b.auth.api.rotateJwks();
    release();
    expect((await slowRotation).kid).toBe(newest);
    const active = (await inner.jwks.list()).filter((r) => r.retiredAt === null);
    expect(active.map((r) => r.id)).toEqual([newest]);
    for (const t of [a, b]) {
      const token = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
      expect(decodeParts(token).header.kid).toBe(newest);
    }
  });

  it("19: no token is signed with a key before a verifier's cached /jwks (any instance's) can hold it", async () => {
    const a = createTestAuth({ plugins: [jwt({ rotationInterval: "1d" })] });
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt({ rotationInterval: "1d" })] });
    const { token, session } = await issueToken(a);
    const oldKid = decodeParts(token).header.kid;
    const jwksRes = await b.request("GET", "/jwks");
    expect(jwksRes.headers.get("cache-control")).toBe("max-age=60");
    const maxAgeMs = 60_000;
    // A verifier polls B's /jwks, honouring max-age; A signs tokens; both every 10 s across the rotation.
    let firstListedAt: number | null = null;
    let firstSignedAt: number | null = null;
    a.clock.advance(DAY - 5 * 60_000);
    for (let i = 0; i < 60; i++) {
      const now = a.clock.now();
      const kids = await publishedKids(b);
      if (firstListedAt === null && kids.some((k) => k !== oldKid)) firstListedAt = now;
      const signed = decodeParts(await tokenOf(await a.request("POST", "/token", { headers: bearer(session) })));
      if (firstSignedAt === null && signed.header.kid !== oldKid) firstSignedAt = now;
      a.clock.advance(10_000);
    }
    expect(firstListedAt).not.toBeNull();
    expect(firstSignedAt).not.toBeNull();
    // A verifier that fetched /jwks just before the key was listed has refetched (max-age) before its first token.
    expect(firstSignedAt! - firstListedAt!).toBeGreaterThanOrEqual(maxAgeMs);
  });
});
