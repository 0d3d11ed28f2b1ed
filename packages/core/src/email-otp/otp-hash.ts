import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64url, utf8 } from "../crypto/crypto.ts";

// HKDF-SHA-256 parameters of the OTP hashing key: a key of its own, never the secret itself.
const OTP_KEY_SALT = utf8("latchkey/otp-code");
const OTP_KEY_INFO = utf8("hmac-sha-256 v1");

/**
 * The HMAC key of stored OTP codes, derived from the auth `secret`.
 */
export function otpHashKey(secret: string): Uint8Array {
  return hkdf(sha256, utf8(secret), OTP_KEY_SALT, OTP_KEY_INFO, 32);
}

/**
 * The stored form of an OTP: HMAC-SHA-256(key, identifier NUL code), base64url. Bound to the row identifier, so a
 * value copied into another row does not verify there.
 */
export function otpValueHash(mac: (text: string) => Uint8Array, identifier: string, code: string): string {
  return base64url(mac(`${identifier}\u0000${code}`));
}
