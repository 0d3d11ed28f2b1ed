import { describe, expect, it } from "vitest";
import { auditLog, emailOtp, magicLink, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { storeForTestRun } from "../../test/test-stores.ts";
import { createTestAuth } from "../../test/test-auth.ts";

// Review fix 8: the "always success" endpoints did extra store writes for registered addresses (a verification
// row, an audit row), about 5 ms more per call at a 2 ms database round trip: timing told registered emails from
// unknown ones. Now both answers cost the same store round trips. This test counts them (no timing assertion);
// bench/src/micro/always-success.ts measures the two medians. Runs on memory, libSQL and PostgreSQL (per project).

const WRITES = ["verifications.issue", "verifications.deleteByIdentifier", "audit.append"] as const;

/** The run's store, counting the writes an always-success endpoint can make, by port method. */
function countingStore() {
  const inner = storeForTestRun() ?? memoryStore();
  const counts = new Map<string, number>();
  const counted = <P extends object>(name: string, port: P): P =>
    new Proxy(port, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== "function" || !WRITES.includes(`${name}.${String(key)}` as (typeof WRITES)[number]))
          return value;
        return (...args: unknown[]) => {
          counts.set(`${name}.${String(key)}`, (counts.get(`${name}.${String(key)}`) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const store: FullStore = {
    ...inner,
    verifications: counted("verifications", inner.verifications),
    audit: counted("audit", inner.audit),
    transaction: (body) => inner.transaction(body),
  };
  const take = () => {
    const snapshot = Object.fromEntries(WRITES.map((w) => [w, counts.get(w) ?? 0]));
    counts.clear();
    return snapshot;
  };
  return { store, take };
}

describe("always-success endpoints do the same store work for registered and unknown addresses", () => {
  const cases = [
    ["/request-password-reset", (email: string) => ({ email })],
    ["/send-verification-email", (email: string) => ({ email })],
    ["/email-otp/send-verification-otp", (email: string) => ({ email, purpose: "password-reset" })],
    ["/email-otp/send-verification-otp", (email: string) => ({ email, purpose: "email-verification" })],
    // With sign-up off only registered addresses get a link (with it on, every address does).
    ["/sign-in/magic-link", (email: string) => ({ email })],
  ] as const;
  for (const [path, body] of cases) {
    it(`${path} ${JSON.stringify(body("x"))}: a registered address costs no extra writes over an unknown one`, async () => {
      const { store, take } = countingStore();
      const t = createTestAuth({ store, plugins: [emailOtp(), magicLink({ allowSignUp: false }), auditLog()] });
      await t.signUp("ada@example.com");
      take();
      const registered = await t.request("POST", path, { body: body("ada@example.com"), ip: "198.51.100.7" });
      expect(registered.status).toBe(200);
      const registeredWrites = take();
      const unknown = await t.request("POST", path, { body: body("nobody@example.com"), ip: "198.51.100.8" });
      expect(unknown.status).toBe(200);
      expect(await unknown.json()).toEqual(await registered.json());
      const unknownWrites = take();
      const total = (w: Record<string, number>) => Object.values(w).reduce((a, b) => a + b, 0);
      expect(total(registeredWrites)).toBeGreaterThan(0);
      expect(total(unknownWrites)).toBe(total(registeredWrites));
      expect(unknownWrites["audit.append"]).toBe(registeredWrites["audit.append"]);
    });
  }
});
