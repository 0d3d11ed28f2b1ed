import { hmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { constantTimeEqual } from "../crypto/crypto.ts";

/**
 * The HMAC of a TOTP (RFC 6238 allows SHA-1, SHA-256 and SHA-512; authenticator apps all read SHA-1).
 *
 * @example
 * const algorithm: TotpAlgorithm = "SHA1";
 */
export type TotpAlgorithm = "SHA1" | "SHA256" | "SHA512";

/**
 * The parameters of a TOTP: digits per code, step length in seconds, and the HMAC.
 *
 * @example
 * const params: TotpParams = { digits: 6, period: 30, algorithm: "SHA1" };
 */
export interface TotpParams {
  digits: number;
  period: number;
  algorithm: TotpAlgorithm;
}

const HASHES = { SHA1: sha1, SHA256: sha256, SHA512: sha512 } as const;

/**
 * HOTP (RFC 4226): HMAC over the 8-byte big-endian counter, dynamic truncation, `digits` decimal digits.
 *
 * @example
 * hotp(utf8("12345678901234567890"), 0, 6, "SHA1"); // "755224" (RFC 4226, appendix D)
 */
export function hotp(key: Uint8Array, counter: number, digits: number, algorithm: TotpAlgorithm): string {
  const message = new Uint8Array(8);
  const view = new DataView(message.buffer);
  // Counters beyond 2^32 (time steps far in the future) need the high word too.
  view.setUint32(0, Math.floor(counter / 0x1_0000_0000));
  view.setUint32(4, counter >>> 0);
  const mac = hmac(HASHES[algorithm], key, message);
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary =
    (((mac[offset] as number) & 0x7f) << 24) |
    ((mac[offset + 1] as number) << 16) |
    ((mac[offset + 2] as number) << 8) |
    (mac[offset + 3] as number);
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/**
 * The time step of `timeMs`: floor(seconds since the epoch / period) (RFC 6238, T0 = 0).
 *
 * @example
 * totpStep(59_000, 30); // 1
 */
export function totpStep(timeMs: number, period: number): number {
  return Math.floor(timeMs / 1000 / period);
}

/**
 * The TOTP code of `timeMs` (RFC 6238).
 *
 * @example
 * totp(utf8("12345678901234567890"), 59_000, { digits: 8, period: 30, algorithm: "SHA1" }); // "94287082"
 */
export function totp(key: Uint8Array, timeMs: number, params: TotpParams): string {
  return hotp(key, totpStep(timeMs, params.period), params.digits, params.algorithm);
}

/**
 * The time step `code` belongs to, among the steps `window` either side of now that are later than `lastStep`,
 * or null. Every candidate is computed and compared in constant time. The caller stores the step it gets as the
 * new `lastStep` atomically (a conditional write), so no code of that step or an earlier one is accepted again.
 *
 * @example
 * const step = matchTotp(key, "287082", Date.now(), params, 1, lastStep);
 */
export function matchTotp(
  key: Uint8Array,
  code: string,
  timeMs: number,
  params: TotpParams,
  window: number,
  lastStep: number | null,
): number | null {
  if (code.length !== params.digits || !/^[0-9]+$/.test(code)) return null;
  const now = totpStep(timeMs, params.period);
  let found: number | null = null;
  for (let step = now - window; step <= now + window; step++) {
    if (step < 0 || (lastStep !== null && step <= lastStep)) continue;
    // No early exit: the answer's timing does not tell which step matched.
    if (constantTimeEqual(hotp(key, step, params.digits, params.algorithm), code) && found === null) found = step;
  }
  return found;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * RFC 4648 base32 without padding (the `secret` of an `otpauth://` URI).
 *
 * @example
 * base32Encode(utf8("foobar")); // "MZXW6YTBOI"
 */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * RFC 4648 base32 (case-insensitive, padding and spaces ignored); null for any other character.
 *
 * @example
 * base32Decode("MZXW6YTBOI"); // utf8("foobar")
 */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of clean) {
    const value = BASE32.indexOf(ch);
    if (value < 0) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/**
 * The `otpauth://totp/` URI authenticator apps read (Key URI Format): label `issuer:account`, and `secret`,
 * `issuer`, `algorithm`, `digits`, `period`.
 *
 * @example
 * totpURI({ issuer: "Acme", account: "ada@example.com", secret: "JBSWY3DPEHPK3PXP", digits: 6, period: 30, algorithm: "SHA1" });
 * // "otpauth://totp/Acme:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme&algorithm=SHA1&digits=6&period=30"
 */
export function totpURI(input: TotpParams & { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  const query = new URLSearchParams({
    secret: input.secret,
    issuer: input.issuer,
    algorithm: input.algorithm,
    digits: String(input.digits),
    period: String(input.period),
  });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, "%20")}`;
}
