import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { at, T0, uid } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `jwks` port; registered by `runStoreConformance`. */
export function describeJwks(getStore: () => Store): void {
  describe("jwks", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("inserts one key per generation, even under 10 parallel inserts", async (context) => {
      const jwks = portOf(store, "jwks", context);
      const before = (await jwks.list()).length;
      const generation = 1_000_000 + Math.floor(Math.random() * 1_000_000);
      const make = () => ({
        id: uid("jwk"),
        generation,
        alg: "EdDSA",
        publicKey: "{}",
        privateKey: "{}",
        createdAt: T0,
        retiredAt: null,
      });
      const results = await Promise.all(Array.from({ length: 10 }, () => jwks.insert(make())));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await jwks.list()).length).toBe(before + 1);
    });

    it("retires older keys and deletes those retired long enough", async (context) => {
      const jwks = portOf(store, "jwks", context);
      const base = 2_000_000 + Math.floor(Math.random() * 1_000_000);
      const old = {
        id: uid("jwk"),
        generation: base,
        alg: "EdDSA",
        publicKey: '{"kty":"OKP"}',
        privateKey: "enc",
        createdAt: T0,
        retiredAt: null,
      };
      const current = { ...old, id: uid("jwk"), generation: base + 1, createdAt: at(1000) };
      await jwks.insert(old);
      await jwks.insert(current);
      await jwks.retireOthers(current.id, at(2000));
      const list = await jwks.list();
      expect(list.find((k) => k.id === old.id)!.retiredAt).toEqual(at(2000));
      expect(list.find((k) => k.id === current.id)).toEqual(current);
      const gens = list.map((k) => k.generation);
      expect(gens).toEqual([...gens].sort((a, b) => a - b));
      expect(await jwks.deleteRetiredBefore(at(3000))).toBeGreaterThanOrEqual(1);
      const after = await jwks.list();
      expect(after.find((k) => k.id === old.id)).toBeUndefined();
      expect(after.find((k) => k.id === current.id)).toEqual(current);
    });

    it("a late retireOthers for an older key never retires a newer generation", async (context) => {
      const jwks = portOf(store, "jwks", context);
      const base = 5_000_000 + Math.floor(Math.random() * 1_000_000);
      const older = {
        id: uid("jwk"),
        generation: base,
        alg: "EdDSA",
        publicKey: '{"kty":"OKP"}',
        privateKey: "enc",
        createdAt: at(0),
        retiredAt: null,
      };
      const slow = { ...older, id: uid("jwk"), generation: base + 1, createdAt: at(1000) };
      const fast = { ...older, id: uid("jwk"), generation: base + 2, createdAt: at(1500) };
      await jwks.insert(older);
      await jwks.insert(slow);
      await jwks.insert(fast);
      await jwks.retireOthers(fast.id, at(2000));
      await jwks.retireOthers(slow.id, at(3000)); // late: must not touch `fast`
      const list = await jwks.list();
      expect(list.find((k) => k.id === fast.id)!.retiredAt).toBeNull();
      expect(list.find((k) => k.id === slow.id)!.retiredAt).toEqual(at(2000));
      expect(list.find((k) => k.id === older.id)!.retiredAt).toEqual(at(2000));
      await jwks.retireOthers("no-such-key", at(4000));
      expect((await jwks.list()).find((k) => k.id === fast.id)!.retiredAt).toBeNull();
    });

    it("keeps the first retirement time of keys already retired (a later rotation does not restart their grace)", async (context) => {
      const jwks = portOf(store, "jwks", context);
      const base = 3_000_000 + Math.floor(Math.random() * 1_000_000);
      const first = {
        id: uid("jwk"),
        generation: base,
        alg: "EdDSA",
        publicKey: '{"kty":"OKP"}',
        privateKey: "enc",
        createdAt: T0,
        retiredAt: null,
      };
      const second = { ...first, id: uid("jwk"), generation: base + 1, createdAt: at(1000) };
      const third = { ...first, id: uid("jwk"), generation: base + 2, createdAt: at(4000) };
      await jwks.insert(first);
      await jwks.insert(second);
      await jwks.retireOthers(second.id, at(2000));
      await jwks.insert(third);
      await jwks.retireOthers(third.id, at(5000));
      const list = await jwks.list();
      expect(list.find((k) => k.id === first.id)!.retiredAt).toEqual(at(2000));
      expect(list.find((k) => k.id === second.id)!.retiredAt).toEqual(at(5000));
      expect(list.find((k) => k.id === third.id)!.retiredAt).toBeNull();
      await jwks.deleteRetiredBefore(at(3000));
      expect(
        (await jwks.list()).filter((k) => [first.id, second.id, third.id].includes(k.id)).map((k) => k.id),
      ).toEqual([second.id, third.id]);
    });
  });
}
