import { type Cbor, cbor, concat, fromB64url } from "./webauthn-bytes.ts";

// The credential keys of a software authenticator (Web Crypto): new key pairs as COSE keys, and their signatures.

/** The credential key's algorithm (COSE): ES256 (-7), EdDSA with Ed25519 (-8), RS256 (-257). */
export type SoftwareAlgorithm = "ES256" | "EdDSA" | "RS256";

/** A raw P-256 signature (r || s, what Web Crypto gives) as the DER `SEQUENCE { r, s }` WebAuthn carries. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let body = bytes.slice(i);
    if ((body[0] as number) & 0x80) body = concat(new Uint8Array([0]), body);
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const seq = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, seq.length]), seq);
}

export const COSE_ALG: Record<SoftwareAlgorithm, number> = { ES256: -7, EdDSA: -8, RS256: -257 };

/** A new key pair of `algorithm` and its public key as a COSE key. */
export async function newKey(algorithm: SoftwareAlgorithm): Promise<{ keys: CryptoKeyPair; cose: Uint8Array }> {
  if (algorithm === "EdDSA") {
    const keys = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const x = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
    return {
      keys,
      cose: cbor(
        new Map<number, Cbor>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, x],
        ]),
      ),
    };
  }
  if (algorithm === "RS256") {
    const keys = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
    const n = fromB64url(jwk.n as string);
    const e = fromB64url(jwk.e as string);
    return {
      keys,
      cose: cbor(
        new Map<number, Cbor>([
          [1, 3],
          [3, -257],
          [-1, n],
          [-2, e],
        ]),
      ),
    };
  }
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
  const cose = cbor(
    new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, fromB64url(jwk.x as string)],
      [-3, fromB64url(jwk.y as string)],
    ]),
  );
  return { keys, cose };
}

/** A WebAuthn signature of `data`: DER for ECDSA, raw for Ed25519 and RSA. */
export async function sign(algorithm: SoftwareAlgorithm, key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  const bytes = new Uint8Array(data);
  if (algorithm === "EdDSA") return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, bytes));
  if (algorithm === "RS256") return new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, bytes));
  return derSignature(new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, bytes)));
}
