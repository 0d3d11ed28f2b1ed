import { randomString, webCryptoRandom, type Random } from "@latchkey/core";

/**
 * A fresh 64-character secret (base62 from a CSPRNG, about 381 bits) for the `secret` option.
 *
 * @example
 * import { generateSecret } from "@latchkey/cli";
 * const secret = generateSecret();
 */
export function generateSecret(random: Random = webCryptoRandom): string {
  return randomString(random, 64);
}
