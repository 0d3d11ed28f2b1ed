import * as crypto from "node:crypto";
import type { NativeHmacSha256, NativeSha256 } from "./native-sha256.ts";

// Selected by the "node" import condition (Node, Bun). Strings are hashed as UTF-8 (a lone surrogate as U+FFFD,
// as TextEncoder does). `crypto.hash` is the one-shot digest (Node 20.12+); a runtime without it keeps `createHash`.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export const nativeSha256: NativeSha256 | null = oneShot
  ? (text) => oneShot("sha256", text, "base64url")
  : (text) => crypto.createHash("sha256").update(text, "utf8").digest("base64url");

/** A one-shot SHA-256 to raw bytes, as `crypto.hash(algorithm, data, "buffer")` is. */
export type OneShotDigest = (algorithm: "sha256", data: Uint8Array, outputEncoding: "buffer") => Uint8Array;

const BLOCK = 64;
const INNER_PAD = 0x36;
const OUTER_PAD = 0x5c;

/**
 * HMAC-SHA-256 (RFC 2104) over a one-shot digest: H(key ^ opad || H(key ^ ipad || text)), with both padded keys
 * made once. Every call is two native one-shot digests. `createHmac` sets up an HMAC context for each MAC, which
 * cost 3-4 times the two digests on the OTP round trip (docs/performance-notes.md, finding 21). Null when `digest` does not
 * give RFC 4231's test vector (a runtime whose one-shot digest lacks raw output), so the caller keeps `createHmac`.
 */
export function oneShotHmacSha256(digest: OneShotDigest | undefined): NativeHmacSha256 | null {
  if (digest === undefined) return null;
  const hmacWith: NativeHmacSha256 = (key) => {
    const block = key.length > BLOCK ? digest("sha256", key, "buffer") : key;
    const inner = Buffer.alloc(BLOCK, INNER_PAD);
    // The outer message: the padded key, then the 32 bytes of the inner digest, written per call.
    const outer = Buffer.alloc(BLOCK + 32, OUTER_PAD);
    for (let i = 0; i < block.length; i++) {
      inner[i]! ^= block[i]!;
      outer[i]! ^= block[i]!;
    }
    return (text) => {
      const message = Buffer.allocUnsafe(BLOCK + Buffer.byteLength(text, "utf8"));
      inner.copy(message, 0);
      message.write(text, BLOCK, "utf8");
      outer.set(digest("sha256", message, "buffer"), BLOCK);
      const mac = digest("sha256", outer, "buffer");
      return new Uint8Array(mac.buffer, mac.byteOffset, mac.byteLength);
    };
  };
  try {
    // RFC 4231, test case 2.
    const vector = hmacWith(Buffer.from("Jefe"))("what do ya want for nothing?");
    const expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    return Buffer.from(vector).toString("hex") === expected ? hmacWith : null;
  } catch {
    return null;
  }
}

// The key becomes a KeyObject once; each MAC is one `createHmac` over the text as UTF-8.
const keyedHmacSha256: NativeHmacSha256 = (key) => {
  const secret = crypto.createSecretKey(key);
  return (text) => crypto.createHmac("sha256", secret).update(text, "utf8").digest();
};

export const nativeHmacSha256: NativeHmacSha256 | null =
  oneShotHmacSha256(oneShot as OneShotDigest | undefined) ?? keyedHmacSha256;
