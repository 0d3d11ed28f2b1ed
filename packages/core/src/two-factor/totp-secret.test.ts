import { describe, expect, it } from "vitest";
import { webCryptoRandom } from "../index.ts";
import { KeyEnvelope } from "../jwt/key-envelope.ts";
import { base32Encode } from "./totp.ts";
import { TotpSecretBox } from "./totp-secret.ts";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";

describe("TOTP secrets sealed at rest", () => {
  it("are made at the algorithm's size and open again for the same user", async () => {
    const box = new TotpSecretBox(SECRET, webCryptoRandom);
    for (const [algorithm, size] of [
      ["SHA1", 20],
      ["SHA256", 32],
      ["SHA512", 64],
    ] as const) {
      const { key, base32 } = box.generate(algorithm);
      expect(key.length).toBe(size);
      expect(base32).toBe(base32Encode(key));
      const stored = await box.seal("user-1", key);
      expect(stored).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(stored).not.toContain(base32);
      expect(await box.open("user-1", stored)).toEqual(key);
    }
  });

  it("an envelope does not open for another user, under another secret, or with the JWT keys' derivation", async () => {
    const box = new TotpSecretBox(SECRET, webCryptoRandom);
    const { key } = box.generate("SHA1");
    const stored = await box.seal("user-1", key);
    await expect(box.open("user-2", stored)).rejects.toThrow();
    await expect(new TotpSecretBox(`${SECRET}x`, webCryptoRandom).open("user-1", stored)).rejects.toThrow();
    // The JWT envelope (same secret, same associated data) has its own key.
    await expect(new KeyEnvelope(SECRET, webCryptoRandom).open("totp:user-1", stored)).rejects.toThrow();
    await expect(box.open("user-1", `${stored.slice(0, -2)}AA`)).rejects.toThrow();
  });
});
