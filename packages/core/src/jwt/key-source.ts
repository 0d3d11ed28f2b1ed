import type { JwtClaims } from "./options.ts";
import type { PublicKeySet } from "./signing.ts";

/**
 * Where signing keys come from: the store (`StoredKeyRing`) or a custom signer (`CustomSignerSource`).
 * Both cache in memory; `refresh` re-reads now (an unknown kid may be another instance's new key).
 *
 * @example
 * const token = await source.sign(claims);
 * const keys = await source.publicKeys(); // keys.json is the /jwks body
 */
export interface KeySource {
  sign(payload: JwtClaims): Promise<string>;
  publicKeys(): Promise<PublicKeySet>;
  refresh(): Promise<PublicKeySet>;
  rotate(options: { force: boolean; revoke: boolean }): Promise<{ kid: string }>;
}
