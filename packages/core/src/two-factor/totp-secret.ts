import { KeyEnvelope } from "../jwt/index.ts";
import type { Random } from "../ports/clock.ts";
import { base32Decode, base32Encode, type TotpAlgorithm } from "./totp.ts";

/** Key sizes per HMAC: the hash's output length (RFC 4226 asks for at least 128 bits, recommends 160 for SHA-1). */
const KEY_BYTES: Record<TotpAlgorithm, number> = { SHA1: 20, SHA256: 32, SHA512: 64 };

/**
 * TOTP secrets: made from the runtime's random source, shown once as base32, stored sealed with AES-256-GCM under
 * a key derived from the auth secret for this purpose alone (as the JWT private keys are, with their own key), the
 * user's id as associated data.
 *
 * @example
 * const box = new TotpSecretBox(secret, webCryptoRandom);
 * const { key, base32 } = box.generate("SHA1");
 * const stored = await box.seal(user.id, key);
 * const again = await box.open(user.id, stored); // the same bytes; throws for another user's row or secret
 */
export class TotpSecretBox {
  private readonly envelope: KeyEnvelope;

  constructor(
    secret: string,
    private readonly random: Random,
  ) {
    this.envelope = new KeyEnvelope(secret, random, { salt: "latchkey/totp-secret", info: "aes-256-gcm v1" });
  }

  /** A new key of the algorithm's size and its base32 form (the `secret` of the `otpauth://` URI). */
  generate(algorithm: TotpAlgorithm): { key: Uint8Array; base32: string } {
    const key = this.random.bytes(KEY_BYTES[algorithm]);
    return { key, base32: base32Encode(key) };
  }

  /** The stored form: `v1.<iv>.<ciphertext+tag>`, bound to `userId`. */
  seal(userId: string, key: Uint8Array): Promise<string> {
    return this.envelope.seal(`totp:${userId}`, base32Encode(key));
  }

  /** The key; throws when the envelope is malformed, belongs to another user or was sealed under another secret. */
  async open(userId: string, stored: string): Promise<Uint8Array> {
    const key = base32Decode(await this.envelope.open(`totp:${userId}`, stored));
    if (!key) throw new Error("Not a sealed TOTP secret");
    return key;
  }
}
