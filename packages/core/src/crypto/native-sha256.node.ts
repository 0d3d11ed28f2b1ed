import * as crypto from "node:crypto";
import type { NativeHmacSha256, NativeSha256 } from "./native-sha256.ts";

// Selected by the "node" import condition (Node, Bun). Strings are hashed as UTF-8 (a lone surrogate as U+FFFD,
// as TextEncoder does). `crypto.hash` is the one-shot digest (Node 20.12+); a runtime without it keeps `createHash`.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export const nativeSha256: NativeSha256 | null = oneShot
  ? (text) => oneShot("sha256", text, "base64url")
  : (text) => crypto.createHash("sha256").update(text, "utf8").digest("base64url");

// The key becomes a KeyObject once; each MAC is one native call over the text as UTF-8.
export const nativeHmacSha256: NativeHmacSha256 | null = (key) => {
  const secret = crypto.createSecretKey(key);
  return (text) => crypto.createHmac("sha256", secret).update(text, "utf8").digest();
};
