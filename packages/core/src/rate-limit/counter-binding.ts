import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64url, utf8 } from "../crypto/crypto.ts";
import type { CounterBinding } from "../ports/store.ts";

const HEX = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The binding `createAuth` passes to a counter store's `bind`: a namespace that differs between apps (derived
 * from the secret and the origin of `baseUrl`) and a keyed hash for the identifiers inside counter keys (emails,
 * client addresses), so a shared Redis never holds them in clear. Changing the secret starts every counter over.
 *
 * @example
 * import { counterBinding } from "@latchkey/core";
 * const binding = counterBinding(process.env.LATCHKEY_SECRET!, "https://app.example");
 * binding.keyOf("email:ada@example.com"); // 22 base64url characters
 */
export function counterBinding(secret: string, baseOrigin: string): CounterBinding {
  const key = hmac(sha256, utf8(secret), utf8("latchkey/counter-keys v1"));
  const namespace = HEX(hmac(sha256, key, utf8(`namespace:${baseOrigin}`)).subarray(0, 6));
  return {
    namespace,
    keyOf: (value) => base64url(hmac(sha256, key, utf8(value)).subarray(0, 16)),
  };
}
