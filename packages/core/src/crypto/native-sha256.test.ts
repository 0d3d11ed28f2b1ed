import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { hmac } from "@noble/hashes/hmac.js";
import * as nodeCrypto from "node:crypto";
import { nativeHmacSha256, nativeSha256 } from "#native-sha256";
import { oneShotHmacSha256, type OneShotDigest } from "./native-sha256.node.ts";
import { nativeHmacSha256 as webHmacSha256, nativeSha256 as webSha256 } from "./native-sha256.web.ts";
import { base64url, hashSecret, hmacSha256With, portableHmacSha256With, utf8 } from "./crypto.ts";

const portable = (text: string) => base64url(sha256(utf8(text)));

// Every stored hash (sessions, codes, link tokens, API keys) was written by one runtime and is read by any other:
// the native digest must give exactly the portable bytes.
const INPUTS = [
  "",
  "abc",
  "x".repeat(43),
  "lk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
  "ada@example.com",
  "grüße, 日本語, 🔑",
  "lone \uD800 surrogate and \uDFFF",
  "a".repeat(10_000),
];

describe("#native-sha256", () => {
  it("is node:crypto on Node, none on the web variant", () => {
    expect(nativeSha256).toBeTypeOf("function");
    expect(webSha256).toBeNull();
  });

  it("gives the portable digest for every input, the known vector included", () => {
    expect(hashSecret("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    for (const text of INPUTS) {
      expect(nativeSha256!(text)).toBe(portable(text));
      expect(hashSecret(text)).toBe(portable(text));
    }
  });
});

describe("#native-sha256: HMAC-SHA-256", () => {
  it("is node:crypto on Node, none on the web variant", () => {
    expect(nativeHmacSha256).toBeTypeOf("function");
    expect(webHmacSha256).toBeNull();
  });

  it("gives the bytes of @noble/hashes' HMAC, native and portable, call after call under one key", () => {
    // RFC 4231 test case 2: key "Jefe".
    const jefe = hmacSha256With(utf8("Jefe"));
    const expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    expect(Buffer.from(jefe("what do ya want for nothing?")).toString("hex")).toBe(expected);
    for (const key of [new Uint8Array(32).fill(7), utf8("k"), new Uint8Array(100).fill(1)]) {
      const native = hmacSha256With(key);
      const portable = portableHmacSha256With(key);
      for (const text of [...INPUTS, ...INPUTS]) {
        const want = Buffer.from(hmac(sha256, key, utf8(text))).toString("hex");
        expect(Buffer.from(native(text)).toString("hex")).toBe(want);
        expect(Buffer.from(portable(text)).toString("hex")).toBe(want);
      }
    }
  });

  it("is two one-shot digests where the runtime has them, and refuses a digest that misses RFC 4231's vector", () => {
    const digest = (nodeCrypto as { hash?: OneShotDigest }).hash;
    expect(digest).toBeTypeOf("function");
    const oneShot = oneShotHmacSha256(digest)!;
    expect(oneShot).toBeTypeOf("function");
    for (const key of [utf8("Jefe"), new Uint8Array(100).fill(9)]) {
      const mac = oneShot(key);
      for (const text of INPUTS) expect(mac(text)).toEqual(hmac(sha256, key, utf8(text)));
    }
    // No one-shot digest, one without raw output, or a wrong one: none, so `createHmac` is used.
    expect(oneShotHmacSha256(undefined)).toBeNull();
    expect(oneShotHmacSha256(() => new Uint8Array(32))).toBeNull();
    expect(
      oneShotHmacSha256(() => {
        throw new TypeError("unknown encoding");
      }),
    ).toBeNull();
  });
});
