import {
  emailOtp,
  type EmailOtpOptions,
  type EmailOtpPlugin,
  type OtpPurpose,
  type VerificationRecord,
} from "@latchkey/core";
import { createHmac, hkdfSync } from "node:crypto";
import { createTestAuth, TEST_SECRET, type TestAuth } from "../../../test/test-auth.ts";

let nextIp = 0;

/**
 * A fresh client address in a network of its own (one IPv4 /24 each), so per-IP and per-network limits do not
 * interfere unless a test means them to.
 *
 * @example
 * await t.post("/email-otp/send-verification-otp", body, { ip: freshIp() });
 */
export function freshIp(): string {
  nextIp++;
  return `10.${(nextIp >> 8) & 255}.${nextIp & 255}.${((nextIp >> 16) & 255) + 1}`;
}

/**
 * @example
 * const t: OtpTestAuth = createOtpTestAuth();
 */
export interface OtpTestAuth extends TestAuth<readonly [EmailOtpPlugin]> {
  /** Every `OtpGenerated` event so far (plaintext codes included: tests only). */
  generated: Array<{ identifier: string; purpose: string; plain: string }>;
  /** POST a JSON body from a fresh IP (or `ip`). */
  post(path: string, body: unknown, init?: { ip?: string; headers?: Record<string, string> }): Promise<Response>;
  /** Asks for a code and returns the plaintext captured through `OtpGenerated` (undefined when none was sent). */
  sendCode(email: string, purpose: "sign-in" | "email-verification" | "password-reset"): Promise<string | undefined>;
  /** The OTP row of a purpose and email (`otp:<purpose>:<email>`). */
  row(purpose: OtpPurpose, key: string): Promise<VerificationRecord | null>;
  /** Deletes and counts the sessions of a user (the store has no listing; fine at the end of a test). */
  countSessions(userId: string): Promise<number>;
}

/**
 * A different code of the same length (never equal to `code`).
 *
 * @example
 * wrongCode("042917"); // "142917"
 */
export function wrongCode(code: string): string {
  return code
    .split("")
    .map((d, i) => (i === 0 ? String((Number(d) + 1) % 10) : d))
    .join("");
}

/**
 * `createTestAuth` with `emailOtp(options)` installed and small helpers for the OTP tests.
 *
 * @example
 * const t = createOtpTestAuth({ allowSignUp: false }, { rateLimit: { enabled: false } });
 * const code = await t.sendCode("ada@example.com", "sign-in");
 */
export function createOtpTestAuth(
  options: EmailOtpOptions = {},
  overrides: Omit<NonNullable<Parameters<typeof createTestAuth>[0]>, "plugins"> = {},
): OtpTestAuth {
  const t = createTestAuth({ plugins: [emailOtp(options)], ...overrides });
  const generated: OtpTestAuth["generated"] = [];
  t.auth.events.on(
    "OtpGenerated",
    (e) => void generated.push({ identifier: e.identifier, purpose: e.purpose, plain: e.plain }),
  );
  const post: OtpTestAuth["post"] = (path, body, init = {}) =>
    t.request("POST", path, { body, ip: init.ip ?? freshIp(), headers: init.headers });
  return {
    ...t,
    generated,
    post,
    async sendCode(email, purpose) {
      const seen = generated.length;
      const res = await post("/email-otp/send-verification-otp", { email, purpose });
      if (res.status !== 200) throw new Error(`send failed: ${res.status} ${await res.text()}`);
      return generated.slice(seen).find((e) => e.identifier === email.trim().toLowerCase())?.plain;
    },
    row: (purpose, key) => t.store.verifications.findByIdentifier(`otp:${purpose}:${key}`),
    countSessions: (userId) => t.store.sessions.deleteByUser(userId),
  };
}

/**
 * What the store keeps for `code` in the row `identifier`, computed here with node:crypto (an implementation
 * independent of core's): HMAC-SHA-256 under HKDF-SHA-256(secret, "latchkey/otp-code", "hmac-sha-256 v1").
 *
 * @example
 * expect(row.valueHash).toBe(storedOtpHash("otp:sign-in:ada@example.com", code));
 */
export function storedOtpHash(identifier: string, code: string): string {
  const key = Buffer.from(hkdfSync("sha256", TEST_SECRET, "latchkey/otp-code", "hmac-sha-256 v1", 32));
  return createHmac("sha256", key).update(`${identifier}\u0000${code}`).digest("base64url");
}
