import { describe, expect, it } from "vitest";
import { webCryptoRandom } from "../ports/clock.ts";
import { argon2idHasher, portableArgon2idRaw } from "./argon2.ts";
import { nativeArgon2idRaw } from "#native-argon2";

const params = { memoryCost: 1024, timeCost: 2, parallelism: 1 };

describe("argon2id", () => {
  it("uses the native engine on Node", () => {
    expect(nativeArgon2idRaw).not.toBeNull();
  });

  it("writes PHC strings that the other engine verifies (a database moves between runtimes)", async () => {
    const native = argon2idHasher({ random: webCryptoRandom, params, engine: nativeArgon2idRaw! });
    const portable = argon2idHasher({ random: webCryptoRandom, params, engine: portableArgon2idRaw });
    const a = await native.hash("pässwörd 🙂");
    const b = await portable.hash("pässwörd 🙂");
    expect(a).toMatch(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await portable.verify(a, "pässwörd 🙂")).toBe(true);
    expect(await native.verify(b, "pässwörd 🙂")).toBe(true);
    expect(await native.verify(a, "passwörd 🙂")).toBe(false);
  });

  it("verifies a vector written by an independent implementation (Rust argon2 crate via @node-rs/argon2.hash)", async () => {
    const phc = "$argon2id$v=19$m=1024,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA";
    const portable = argon2idHasher({ random: webCryptoRandom, engine: portableArgon2idRaw });
    expect(await portable.verify(phc, "password")).toBe(true);
    expect(await portable.verify(phc, "Password")).toBe(false);
  });

  it("rejects malformed hashes without throwing", async () => {
    const hasher = argon2idHasher({ random: webCryptoRandom, params });
    for (const bad of [
      "",
      "plain",
      "$argon2i$v=19$m=1,t=1,p=1$abc$def",
      "$argon2id$v=19$m=99999999,t=2,p=1$c29tZXNhbHQ$ZTgA8xBGUP2nyNCaDO8zkCXeqVcmVXUDq7kEMhGFDG4",
    ]) {
      expect(await hasher.verify(bad, "password")).toBe(false);
    }
  });
});
