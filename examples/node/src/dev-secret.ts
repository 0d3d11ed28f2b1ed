import { randomString, webCryptoRandom } from "@latchkey/core";

/** A throwaway secret for local runs; set LATCHKEY_SECRET (from `latchkey secret`) to keep JWT keys readable across restarts. */
export function generateDevSecret(): string {
  console.warn("LATCHKEY_SECRET is not set: using a random secret for this run.");
  return randomString(webCryptoRandom, 64);
}
