import { base64url } from "../../crypto/crypto.ts";
import type { CborValue } from "./cbor.ts";

/** COSE public keys (RFC 9053) as Web Crypto verifiers, and the failure type of every WebAuthn check. */

/** COSE algorithms accepted: Ed25519 (EdDSA), ES256, RS256 (what platform and roaming authenticators use). */
export const COSE_ALGORITHMS = [-8, -7, -257] as const;

/** A check that failed: `reason` is a word for the message and the events, never the input. */
export class WebAuthnFailure extends Error {
  constructor(readonly reason: string) {
    super(`WebAuthn check failed: ${reason}`);
  }
}

/** Throws the `WebAuthnFailure` of `reason`. */
export const fail = (reason: string): never => {
  throw new WebAuthnFailure(reason);
};

/** A COSE key's bytes field of `length` bytes (or any length when 0). */
function field(key: Map<number | string, CborValue>, label: number, length = 0): Uint8Array {
  const value = key.get(label);
  if (!(value instanceof Uint8Array) || (length > 0 && value.length !== length)) return fail("algorithm");
  return value;
}

/** A verifier for signatures of a COSE public key (EC2 P-256 / ES256, OKP Ed25519 / EdDSA, RSA / RS256). */
export async function verifierOf(key: Map<number | string, CborValue>): Promise<{
  alg: number;
  verify: (signature: Uint8Array, data: Uint8Array<ArrayBuffer>) => Promise<boolean>;
}> {
  const kty = key.get(1);
  const alg = key.get(3);
  if (typeof alg !== "number" || !(COSE_ALGORITHMS as readonly number[]).includes(alg)) return fail("algorithm");
  try {
    if (kty === 2 && alg === -7 && key.get(-1) === 1) {
      const jwk = { kty: "EC", crv: "P-256", x: base64url(field(key, -2, 32)), y: base64url(field(key, -3, 32)) };
      const k = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
      return {
        alg,
        verify: async (signature, data) => {
          const raw = rawEcdsaSignature(signature);
          return raw !== null && crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, k, raw, data);
        },
      };
    }
    if (kty === 1 && alg === -8 && key.get(-1) === 6) {
      const x = field(key, -2, 32) as Uint8Array<ArrayBuffer>;
      const k = await crypto.subtle.importKey("raw", x, { name: "Ed25519" }, false, ["verify"]);
      return {
        alg,
        verify: async (signature, data) =>
          crypto.subtle.verify({ name: "Ed25519" }, k, signature as Uint8Array<ArrayBuffer>, data),
      };
    }
    if (kty === 3 && alg === -257) {
      const n = field(key, -1);
      // At least 2048-bit moduli (a leading zero byte aside).
      if (n.length - (n[0] === 0 ? 1 : 0) < 256) return fail("algorithm");
      const jwk = { kty: "RSA", n: base64url(n), e: base64url(field(key, -2)) };
      const k = await crypto.subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
        "verify",
      ]);
      return {
        alg,
        verify: async (signature, data) =>
          crypto.subtle.verify("RSASSA-PKCS1-v1_5", k, signature as Uint8Array<ArrayBuffer>, data),
      };
    }
  } catch (error) {
    if (error instanceof WebAuthnFailure) throw error;
    // A key Web Crypto refuses (a point off the curve, a bad modulus).
    return fail("algorithm");
  }
  return fail("algorithm");
}

/** An ASN.1 DER ECDSA signature (SEQUENCE of two INTEGERs) as the 64-byte r||s Web Crypto verifies; null if not one. */
function rawEcdsaSignature(der: Uint8Array): Uint8Array<ArrayBuffer> | null {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return null;
  const out = new Uint8Array(64);
  let at = 2;
  for (const half of [0, 32]) {
    if (der[at] !== 0x02) return null;
    const length = der[at + 1]!;
    at += 2;
    if (length === 0 || length > 33 || at + length > der.length) return null;
    let value = der.subarray(at, at + length);
    at += length;
    while (value.length > 0 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) return null;
    out.set(value, half + 32 - value.length);
  }
  return at === der.length ? out : null;
}
