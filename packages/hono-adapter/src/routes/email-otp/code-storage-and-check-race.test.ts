import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashSecret, type FullStore, type VerificationRecord } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

// Review fixes 30.9 (OTP codes hashed without a key) and 30.11 (an OTP check answered 200 for a destroyed code).

const CHECK = "/email-otp/check-verification-otp";

describe("OTP codes at rest (review fix 30.9)", () => {
  it("a database reader cannot recover a live code by hashing the 10^6 candidates with plain SHA-256", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com");
    const code = (await t.sendCode("ada@example.com", "email-verification"))!;
    const row = (await t.row("email-verification", "ada@example.com"))!;
    // What the reader would try: SHA-256 of every candidate. The stored value matches none of them.
    let found: string | null = null;
    for (let n = 0; n < 1_000_000 && found === null; n++) {
      const candidate = String(n).padStart(6, "0");
      if (createHash("sha256").update(candidate).digest("base64url") === row.valueHash) found = candidate;
    }
    expect(found).toBeNull();
    const ok = await t.post(CHECK, { email: "ada@example.com", purpose: "email-verification", otp: code });
    expect(ok.status).toBe(200);
  });

  it("a row written before the keyed hash (plain SHA-256) still verifies until it expires", async () => {
    const t = createOtpTestAuth();
    const { userId } = await t.signUp("ada@example.com");
    const now = t.clock.now();
    const legacy: VerificationRecord = {
      id: "legacy-row",
      identifier: "otp:sign-in:ada@example.com",
      valueHash: hashSecret("246810"),
      attemptCount: 0,
      expiresAt: new Date(now + 5 * 60_000),
      createdAt: new Date(now),
      userId,
      payload: null,
    };
    await t.store.verifications.issue(legacy);
    expect((await t.post(CHECK, { email: "ada@example.com", purpose: "sign-in", otp: "246810" })).status).toBe(200);
    const signIn = await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: "246810" });
    expect(signIn.status).toBe(200);
    await t.store.verifications.issue({ ...legacy, id: "legacy-expired", expiresAt: new Date(now + 1000) });
    t.clock.advance(2000);
    const expired = await t.post(CHECK, { email: "ada@example.com", purpose: "sign-in", otp: "246810" });
    expect(expired.status).toBe(400);
    expect((await expired.json()).code).toBe("OTP_EXPIRED");
  });
});

describe("an OTP check racing its own destruction (review fix 30.11)", () => {
  it("the right code checked while parallel wrong checks destroy the row is not answered 200", async () => {
    const base = createTestAuth();
    const verifications = base.store.verifications;
    // The right check's read of the row is held until the wrong checks have destroyed it.
    let hold: ((row: VerificationRecord | null) => Promise<void>) | null = null;
    const store: FullStore = {
      ...base.store,
      verifications: {
        issue: (record) => verifications.issue(record),
        findByValueHash: (valueHash) => verifications.findByValueHash(valueHash),
        consume: (id) => verifications.consume(id),
        recordFailedAttempt: (id, max) => verifications.recordFailedAttempt(id, max),
        deleteByIdentifier: (identifier) => verifications.deleteByIdentifier(identifier),
        deleteExpired: (now) => verifications.deleteExpired(now),
        async findByIdentifier(identifier) {
          const row = await verifications.findByIdentifier(identifier);
          const held = hold;
          hold = null;
          if (held) await held(row);
          return row;
        },
      },
    };
    const t = createOtpTestAuth({}, { store });
    await t.signUp("ada@example.com");
    const code = (await t.sendCode("ada@example.com", "email-verification"))!;
    const body = { email: "ada@example.com", purpose: "email-verification" };
    hold = async () => {
      for (let i = 0; i < 3; i++) await t.post(CHECK, { ...body, otp: wrongCode(code) });
      expect(await verifications.findByIdentifier("otp:email-verification:ada@example.com")).toBeNull();
    };
    const right = await t.post(CHECK, { ...body, otp: code });
    expect(hold).toBeNull();
    expect(right.status).toBe(400);
    expect((await right.json()).code).toBe("INVALID_OTP");
  });
});
