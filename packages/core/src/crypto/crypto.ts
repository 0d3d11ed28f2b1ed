import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { nativeHmacSha256, nativeSha256 } from "#native-sha256";
import type { Random } from "../ports/clock.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!;
  }
  return out;
}

/** Decodes base64url (no padding); null when the text is not base64url. */
export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    value = (value << 6) | B64URL.indexOf(text[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

/**
 * SHA-256 of a secret (session token, OTP, link token, API key) as base64url: the only form stored.
 * Synchronous because it sits on every authenticated request and the input is tiny: `node:crypto`'s one-shot
 * digest on Node and Bun (`#native-sha256`), `@noble/hashes` elsewhere; both give the same bytes.
 *
 * @example
 * import { hashSecret } from "@latchkey/core";
 * const stored = hashSecret(token);
 */
export function hashSecret(secret: string): string {
  return nativeSha256 ? nativeSha256(secret) : base64url(sha256(utf8(secret)));
}

/**
 * HMAC-SHA-256 under `key`, set up once: the returned function MACs UTF-8 text (32 bytes). `node:crypto` on Node
 * and Bun (`#native-sha256`), else `@noble/hashes` from a copy of the keyed state; both give the same bytes.
 *
 * @example
 * const mac = hmacSha256With(key);
 * base64url(mac("otp:sign-in:ada@example.com\u0000042917"));
 */
export function hmacSha256With(key: Uint8Array): (text: string) => Uint8Array {
  return nativeHmacSha256 ? nativeHmacSha256(key) : portableHmacSha256With(key);
}

/** `hmacSha256With` on runtimes without `node:crypto`: `@noble/hashes`, keyed once and cloned per MAC. */
export function portableHmacSha256With(key: Uint8Array): (text: string) => Uint8Array {
  const keyed = hmac.create(sha256, key);
  return (text) => keyed.clone().update(utf8(text)).digest();
}

/**
 * Compares two byte strings or strings in time independent of where they differ. Two strings are compared by
 * UTF-16 code unit without encoding them first (stored hashes are compared on every API-key verify): equal exactly
 * when the strings are identical.
 */
export function constantTimeEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  if (typeof a === "string" && typeof b === "string") {
    let diff = a.length ^ b.length;
    const n = Math.max(a.length, b.length);
    // Past the end `charCodeAt` is NaN, which `| 0` makes 0, as the byte path's `?? 0`.
    for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
    return diff === 0;
  }
  const x = typeof a === "string" ? utf8(a) : a;
  const y = typeof b === "string" ? utf8(b) : b;
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A random identifier for rows: 16 bytes (128 bits), base64url. */
export function randomId(random: Random): string {
  return base64url(random.bytes(16));
}

/** A random secret token: `bytes` random bytes, base64url. */
export function randomToken(random: Random, bytes = 32): string {
  return base64url(random.bytes(bytes));
}

/** Whether `token` has the shape `randomToken` gives by default: 43 base64url characters (32 bytes, no padding). */
export function isTokenShaped(token: string): boolean {
  return token.length === 43 && /^[A-Za-z0-9_-]+$/.test(token);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters drawn uniformly from `alphabet` by rejection sampling (no modulo bias). */
export function randomString(random: Random, length: number, alphabet: string = BASE62): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const chunk = random.bytes(Math.ceil((length - out.length) * 1.3) + 4);
    for (const byte of chunk) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A numeric code of exactly `digits` digits, uniform over all 10^digits strings (leading zeros kept). */
export function randomDigits(random: Random, digits: number): string {
  return randomString(random, digits, "0123456789");
}
