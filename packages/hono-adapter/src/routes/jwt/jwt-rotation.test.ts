import { describe, expect, it } from "vitest";
import { jwt, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts, issueToken, publishedKids, tokenOf } from "../../../test/routes/jwt/test-fixtures.ts";

const DAY = 86_400_000;

describe("rotation", () => {
  it("a new kid after rotationInterval, published 2 × keyCacheTtl before it signs; both keys listed during gracePeriod; only the new one after", async () => {
    const t = createTestAuth({ plugins: [jwt({ rotationInterval: "1d", gracePeriod: "12h" })] });
    const { token: first, session } = await issueToken(t);
    const oldKid = decodeParts(first).header.kid as string;
    t.clock.advance(DAY - 180_000);
    expect(decodeParts(await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(
      oldKid,
    );
    expect(await publishedKids(t)).toEqual([oldKid]);

    // Two key-cache lifetimes before the interval ends the next key is listed, but the old one still signs.
    t.clock.advance(60_000);
    const lastOld = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(lastOld).header.kid).toBe(oldKid);
    const [newKid] = await publishedKids(t);
    expect(newKid).not.toBe(oldKid);
    expect(await publishedKids(t)).toEqual([newKid, oldKid]);

    t.clock.advance(120_000);
    const rotated = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(rotated).header.kid).toBe(newKid);
    expect(await publishedKids(t)).toEqual([newKid, oldKid]);
    const rows = await t.store.jwks.list();
    expect(rows.find((r) => r.id === oldKid)!.retiredAt).toEqual(new Date(t.clock.now()));
    expect(rows.find((r) => r.id === newKid)!.retiredAt).toBeNull();
    // A token signed a minute before the rotation still verifies with the retired key.
    expect((await t.auth.api.verifyJwt(lastOld)).sub).toBeTruthy();

    t.clock.advance(DAY / 2 - 1000);
    expect(await publishedKids(t)).toEqual([newKid, oldKid]);
    t.clock.advance(2000);
    expect(await publishedKids(t)).toEqual([newKid]);
    expect((await t.store.jwks.list()).map((r) => r.id)).toEqual([newKid]);
    expect(decodeParts(await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(
      newKid,
    );
  });

  it("concurrent instances rotating at once create one new generation", async () => {
    const first = createTestAuth({ plugins: [jwt({ rotationInterval: "1d" })] });
    const others = Array.from({ length: 3 }, () =>
      createTestAuth({ store: first.store, clock: first.clock, plugins: [jwt({ rotationInterval: "1d" })] }),
    );
    const { session } = await issueToken(first);
    for (const t of others) await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    const all = () =>
      Promise.all(
        [first, ...others].flatMap((t) =>
          [1, 2, 3].map(() => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf)),
        ),
      );
    first.clock.advance(DAY);
    // Due: one next key is published (one generation among all racers); the current key signs until it starts.
    const before = await all();
    const published = await first.store.jwks.list();
    expect(published).toHaveLength(2);
    expect(new Set(before.map((tk) => decodeParts(tk).header.kid))).toEqual(new Set([published[0]!.id]));
    first.clock.advance(120_000);
    const tokens = await all();
    const rows = await first.store.jwks.list();
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.retiredAt === null)).toHaveLength(1);
    expect(new Set(tokens.map((tk) => decodeParts(tk).header.kid))).toEqual(
      new Set([rows.find((r) => r.retiredAt === null)!.id]),
    );
  });

  it("a second instance on the same store sees a rotation within the cache TTL", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt()] });
    const { token, session } = await issueToken(a);
    const oldKid = decodeParts(token).header.kid;
    expect(decodeParts(await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(
      oldKid,
    );

    const { kid: newKid } = await a.auth.api.rotateJwks();
    expect(newKid).not.toBe(oldKid);
    expect(decodeParts(await tokenOf(await a.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(
      newKid,
    );
    a.clock.advance(60_000);
    expect(decodeParts(await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(
      newKid,
    );
    expect(await publishedKids(b)).toEqual([newKid, oldKid]);
  });

  it("an instance verifies another instance's brand-new key at once (one refresh on an unknown kid)", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt()] });
    const { session } = await issueToken(a);
    await b.auth.api.getJwks();
    await a.auth.api.rotateJwks();
    const fresh = await tokenOf(await a.request("POST", "/token", { headers: bearer(session) }));
    expect((await b.auth.api.verifyJwt(fresh)).sid).toBeTruthy();
  });

  it("a creator that stopped between insert and retire is healed by the next reader", async () => {
    const inner = memoryStore();
    let failRetire = false;
    const store: FullStore = {
      ...inner,
      jwks: {
        ...inner.jwks,
        retireOthers: (id, at) =>
          failRetire ? Promise.reject(new Error("connection lost")) : inner.jwks.retireOthers(id, at),
      },
    };
    const a = createTestAuth({ store, plugins: [jwt()] });
    const { token, session } = await issueToken(a);
    failRetire = true;
    await expect(a.auth.api.rotateJwks()).rejects.toThrow("connection lost");
    failRetire = false;
    expect((await inner.jwks.list()).filter((r) => r.retiredAt === null)).toHaveLength(2);
    const b = createTestAuth({ store, clock: a.clock, plugins: [jwt()] });
    const fresh = await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }));
    const rows = await inner.jwks.list();
    expect(rows.filter((r) => r.retiredAt === null).map((r) => r.id)).toEqual([decodeParts(fresh).header.kid]);
    expect(rows.find((r) => r.id === decodeParts(token).header.kid)!.retiredAt).toEqual(new Date(a.clock.now()));
  });

  it("changing alg rotates to a key of the new algorithm; the old key stays listed", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const { session, token } = await issueToken(a);
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt({ alg: "ES256" })] });
    const es = await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(es).header.alg).toBe("ES256");
    expect(await publishedKids(b)).toEqual([decodeParts(es).header.kid, decodeParts(token).header.kid]);
    expect((await b.auth.api.verifyJwt(es)).sub).toBeTruthy();
  });
});
