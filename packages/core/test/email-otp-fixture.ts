import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../src/auth/auth-core.ts";
import { argon2idHasher } from "../src/password/argon2.ts";
import { createTestClock, webCryptoRandom, type Random } from "../src/ports/clock.ts";
import { emailOtp, EMAIL_OTP_PLUGIN_ID } from "../src/email-otp/plugin.ts";
import type { EmailOtpOptions } from "../src/email-otp/options.ts";

/** For the email OTP service tests (src/email-otp/*.test.ts): a core over the memory store with the plugin on. */
export function setup(
  options: EmailOtpOptions = {},
  random: Random = webCryptoRandom,
  hooks: Parameters<typeof createAuthCore>[0]["hooks"] = undefined,
) {
  const store = memoryStore();
  const core = createAuthCore({
    secret: "s".repeat(32),
    database: store,
    baseUrl: "https://app.example",
    clock: createTestClock(),
    random,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    // These tests issue many codes to one address in a row; the per-recipient limits are tested over HTTP.
    email: { sender: { send: async () => {} }, perRecipient: false, resendCooldown: false, recipientCap: false },
    plugins: [emailOtp(options)],
    captureOtp: true,
    ...(hooks ? { hooks } : {}),
  });
  return { core, store, feature: core.plugins.get(EMAIL_OTP_PLUGIN_ID)! };
}
