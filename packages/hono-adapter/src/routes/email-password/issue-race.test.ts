import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { createTestAuth, networkIp } from "../../../test/test-auth.ts";

// Issue 33 item 10: many sends racing for one address each write the same verification row (one live secret per
// identifier). Every store does it as one atomic upsert, so no racer fails on the identifier's unique index (a 500)
// and exactly one secret is left alive. The per-recipient limits are off here (the harness default), so every one of
// the racing sends issues.
const ADA = "ada@example.com";

describe("parallel sends for one address", () => {
  it("30 parallel reset requests answer 200 each, and exactly one of the 30 mailed links still resets", async () => {
    const t = createTestAuth();
    await t.signUp(ADA);
    t.emails.sent.length = 0;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.request("POST", "/request-password-reset", { body: { email: ADA }, ip: networkIp(i + 1) }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(30).fill(200));
    await t.settle();
    const tokens = t.emails.sent
      .filter((m) => m.to === ADA)
      .map((m) => /[?&]token=([A-Za-z0-9_-]{43})/.exec(m.text)?.[1]);
    expect(tokens).toHaveLength(30);
    expect(new Set(tokens).size).toBe(30);
    // One row for the user's reset identifier, whatever order the writes landed in.
    const user = await t.store.users.findByEmail(ADA);
    expect(await t.store.verifications.findByIdentifier(`password-reset:${user!.id}`)).not.toBeNull();
    const resets = [];
    for (const [i, token] of tokens.entries()) {
      const res = await t.request("POST", "/reset-password", {
        body: { token, newPassword: `a new password ${i}` },
        ip: networkIp(i + 301),
      });
      resets.push(res.status);
    }
    expect(resets.filter((status) => status === 200)).toHaveLength(1);
    expect(resets.filter((status) => status === 400)).toHaveLength(29);
  });

  it("30 parallel code sends answer 200 each and leave exactly one code row", async () => {
    const t = createTestAuth({ plugins: [emailOtp()] });
    await t.signUp(ADA);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.request("POST", "/email-otp/send-verification-otp", {
          body: { email: ADA, purpose: "sign-in" },
          ip: networkIp(i + 1),
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(30).fill(200));
    await t.settle();
    const row = await t.store.verifications.findByIdentifier(`otp:sign-in:${ADA}`);
    expect(row).not.toBeNull();
    expect(await t.store.verifications.findByValueHash(row!.valueHash)).toEqual(row);
  });
});
