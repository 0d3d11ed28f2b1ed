import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { base64url, utf8 } from "../crypto/crypto.ts";
import { nativeJws } from "#native-jws";
import type { NativeJws } from "./native-jws.ts";
import type { JsonWebKeySet, JwsAlgorithm, JwtClaims, JwtHeader, PublicJwk } from "./options.ts";

// Web Crypto parameters of each JWS algorithm (RFC 7518: PS256 uses a salt as long as the hash).
const SIGN_PARAMS: Record<JwsAlgorithm, AlgorithmIdentifier | EcdsaParams | RsaPssParams> = {
  EdDSA: { name: "Ed25519" },
  ES256: { name: "ECDSA", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  PS256: { name: "RSA-PSS", saltLength: 32 },
};

// Only these members leave the server: a whitelist, so no private member (d, p, q, dp, dq, qi, k) can slip out.
const PUBLIC_MEMBERS = ["kty", "crv", "x", "y", "n", "e"] as const;

/**
 * The public part of a JWK with `kid`, `alg` and `use: "sig"`; null when it has no `kty` or `kid`.
 *
 * @example
 * toPublicJwk({ kty: "OKP", crv: "Ed25519", x: "...", d: "secret" }, "kid-1", "EdDSA"); // no `d`
 */
export function toPublicJwk(jwk: Record<string, unknown>, kid: unknown, alg: string): PublicJwk | null {
  if (typeof jwk.kty !== "string" || typeof kid !== "string" || kid === "") return null;
  const out: PublicJwk = { kty: jwk.kty, kid, alg: typeof jwk.alg === "string" ? jwk.alg : alg, use: "sig" };
  for (const member of PUBLIC_MEMBERS) {
    const value = jwk[member];
    if (member !== "kty" && typeof value === "string") out[member] = value;
  }
  return out;
}

/**
 * A freshly generated key pair as JWKs (the private one is exported once, to be sealed and stored).
 *
 * @example
 * const { publicJwk, privateJwk } = await generateSigningKey("EdDSA", randomId(random));
 */
export async function generateSigningKey(
  alg: JwsAlgorithm,
  kid: string,
): Promise<{ publicJwk: PublicJwk; privateJwk: JWK }> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const publicJwk = toPublicJwk(await exportJWK(pair.publicKey), kid, alg);
  if (!publicJwk) throw new Error(`Could not export the ${alg} public key`);
  return { publicJwk, privateJwk: { ...(await exportJWK(pair.privateKey)), kid, alg } };
}

/**
 * A signing key ready for the hot path: the key imported once and the header encoded once, so a signature
 * costs one JSON encode and one sign. On Node the key is a `KeyObject` signed synchronously (`#native-jws`);
 * elsewhere, or if Node refuses the key, a non-extractable `CryptoKey` and `crypto.subtle.sign`.
 *
 * @example
 * const signer = await LocalSigner.fromPrivateJwk(privateJwk, "EdDSA", kid);
 * const token = await signer.sign(claims);
 * signer.engine; // "node" on Node, "webcrypto" on workerd, Deno and browsers
 */
export class LocalSigner {
  readonly header: JwtHeader;
  private readonly encodedHeader: string;

  private constructor(
    alg: JwsAlgorithm,
    kid: string,
    readonly engine: "node" | "webcrypto",
    private readonly signInput: (input: string) => string | Promise<string>,
    private readonly encode: (text: string) => string,
  ) {
    this.header = { alg, kid, typ: "JWT" };
    this.encodedHeader = encode(JSON.stringify(this.header));
  }

  /** `native` defaults to this runtime's `#native-jws`; pass null to force Web Crypto. */
  static async fromPrivateJwk(
    jwk: JWK,
    alg: JwsAlgorithm,
    kid: string,
    native: NativeJws | null = nativeJws,
  ): Promise<LocalSigner> {
    if (native) {
      try {
        return new LocalSigner(alg, kid, "node", native.signer({ ...jwk, alg }, alg), native.encode);
      } catch {
        // Fall through: Web Crypto either signs with it or throws the error the caller reports.
      }
    }
    const key = await importJWK({ ...jwk, alg }, alg, { extractable: false });
    if (key instanceof Uint8Array || key.type !== "private") throw new Error("The stored JWT key is not a private key");
    // RFC 7518 asks for 2048-bit RSA keys; the node:crypto path refuses shorter ones too.
    if ("modulusLength" in key.algorithm && (key.algorithm as RsaHashedKeyAlgorithm).modulusLength < 2048) {
      throw new Error(`The stored JWT key is not a private ${alg} key`);
    }
    const params = SIGN_PARAMS[alg];
    const signInput = async (input: string): Promise<string> =>
      base64url(new Uint8Array(await crypto.subtle.sign(params, key, utf8(input) as BufferSource)));
    return new LocalSigner(alg, kid, "webcrypto", signInput, encodeUtf8);
  }

  async sign(payload: JwtClaims): Promise<string> {
    const input = `${this.encodedHeader}.${this.encode(JSON.stringify(payload))}`;
    return `${input}.${await this.signInput(input)}`;
  }
}

function encodeUtf8(text: string): string {
  return base64url(utf8(text));
}

/**
 * The published keys: the JWKS object, its JSON (serialised once, served as is) and the imported
 * verification keys by kid (imported on first use, carried over between refreshes).
 *
 * @example
 * const keys = new PublicKeySet([publicJwk], previousKeys);
 * const key = await keys.verificationKey(header.kid, "EdDSA"); // null when unknown
 */
export class PublicKeySet {
  readonly jwks: JsonWebKeySet;
  readonly json: string;
  private readonly byKid: Map<string, PublicJwk>;
  private readonly imported: Map<string, Promise<CryptoKey | null>>;

  constructor(keys: PublicJwk[], previous: PublicKeySet | null = null) {
    this.jwks = Object.freeze({ keys: Object.freeze(keys.map((k) => Object.freeze({ ...k }))) as PublicJwk[] });
    this.json = JSON.stringify(this.jwks);
    this.byKid = new Map(keys.map((k) => [k.kid, k]));
    this.imported = new Map();
    if (previous) {
      for (const [kid, key] of previous.imported) {
        if (JSON.stringify(this.byKid.get(kid)) === JSON.stringify(previous.byKid.get(kid)))
          this.imported.set(kid, key);
      }
    }
  }

  has(kid: string): boolean {
    return this.byKid.has(kid);
  }

  /** The public key of `kid` for `alg`, or null when unknown or of another algorithm. */
  verificationKey(kid: string, alg: JwsAlgorithm): Promise<CryptoKey | null> {
    const jwk = this.byKid.get(kid);
    if (!jwk || jwk.alg !== alg) return Promise.resolve(null);
    let key = this.imported.get(kid);
    if (!key) {
      key = importJWK({ ...jwk }, alg).then(
        (k) => (k instanceof Uint8Array || k.type !== "public" ? null : k),
        () => null,
      );
      this.imported.set(kid, key);
    }
    return key;
  }
}
