import { base64url, fromBase64url, fromUtf8, utf8 } from "../crypto/crypto.ts";
import type { Random } from "../ports/clock.ts";

const VERSION = "v1";

/**
 * What the envelope's key is derived for: HKDF salt and info. Each kind of sealed secret has its own, so a key
 * derived for one never opens another's envelopes.
 *
 * @example
 * const purpose: EnvelopePurpose = { salt: "latchkey/totp-secret", info: "aes-256-gcm v1" };
 */
export interface EnvelopePurpose {
  salt: string;
  info: string;
}

/** The JWT private keys' derivation (the default, unchanged since the first sealed key). */
const JWT_PRIVATE_KEY: EnvelopePurpose = { salt: "latchkey/jwt-private-key", info: "aes-256-gcm v1" };

/**
 * Encrypts JWT private keys (and, with its own `purpose`, TOTP secrets) at rest: AES-256-GCM under a key derived
 * with HKDF-SHA-256 from the auth secret, a fresh 96-bit IV per value, and the row's id as associated data (an
 * envelope cannot be moved to another row).
 * Stored form: `v1.<iv>.<ciphertext+tag>`, both base64url.
 *
 * @example
 * const envelope = new KeyEnvelope(secret, webCryptoRandom);
 * const stored = await envelope.seal("key-id", '{"kty":"OKP",...}');
 * const plain = await envelope.open("key-id", stored); // throws when the secret changed
 */
export class KeyEnvelope {
  private kek: Promise<CryptoKey> | null = null;

  constructor(
    private readonly secret: string,
    private readonly random: Random,
    private readonly purpose: EnvelopePurpose = JWT_PRIVATE_KEY,
  ) {}

  /** True when `stored` is an envelope (rather than plain JWK JSON written with encryption disabled). */
  static isSealed(stored: string): boolean {
    return stored.startsWith(`${VERSION}.`);
  }

  private key(): Promise<CryptoKey> {
    this.kek ??= (async () => {
      const ikm = await crypto.subtle.importKey("raw", utf8(this.secret) as BufferSource, "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: utf8(this.purpose.salt) as BufferSource,
          info: utf8(this.purpose.info) as BufferSource,
        },
        ikm,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    return this.kek;
  }

  async seal(keyId: string, plaintext: string): Promise<string> {
    const iv = this.random.bytes(12);
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: iv as BufferSource, additionalData: utf8(keyId) as BufferSource },
      await this.key(),
      utf8(plaintext) as BufferSource,
    );
    return `${VERSION}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  }

  /** The plaintext; throws when the envelope is malformed or does not authenticate (wrong secret, wrong row). */
  async open(keyId: string, stored: string): Promise<string> {
    const [version, ivText, bodyText, extra] = stored.split(".");
    const iv = ivText === undefined ? null : fromBase64url(ivText);
    const body = bodyText === undefined ? null : fromBase64url(bodyText);
    if (version !== VERSION || extra !== undefined || !iv || iv.length !== 12 || !body || body.length < 16) {
      throw new Error("Not a v1 key envelope");
    }
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: iv as BufferSource, additionalData: utf8(keyId) as BufferSource },
      await this.key(),
      body as BufferSource,
    );
    return fromUtf8(new Uint8Array(plain));
  }
}
