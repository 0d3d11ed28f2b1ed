import { createHmac, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AuthError } from "../errors/errors.ts";
import { SERVER_CALL } from "../kernel/request-meta.ts";
import type { Random } from "../ports/clock.ts";
import { hashSecret } from "../crypto/crypto.ts";
import { setup } from "../../test/email-otp-fixture.ts";
import { otpIdentifier } from "./otp-codes.ts";

describe("OTP codes", () => {
  it("are drawn uniformly over all codeLength-digit strings, leading zeros kept", async () => {
    const { core, feature } = setup({ codeLength: 4 });
    const counts = Array.from({ length: 4 }, () => new Array<number>(10).fill(0));
    const n = 3000;
    let leadingZero = 0;
    for (let i = 0; i < n; i++) {
      await feature.service.codes.issueTo(
        { purpose: "sign-in", identifier: "otp:sign-in:x@example.com", email: "x@example.com" },
        { userId: null, payload: null },
        SERVER_CALL,
        null,
      );
      const code = core.getOtp("x@example.com")!;
      expect(code).toMatch(/^[0-9]{4}$/);
      if (code.startsWith("0")) leadingZero++;
      for (let p = 0; p < 4; p++) counts[p]![Number(code[p])]!++;
    }
    // Expected 300 per digit and position (sd ~16); 6 sd either side.
    for (const c of counts.flat()) {
      expect(c).toBeGreaterThan(200);
      expect(c).toBeLessThan(400);
    }
    expect(leadingZero).toBeGreaterThan(200);
  });

  it("come from the injected CSPRNG (all-zero bytes give an all-zero code) and only their keyed hash is stored", async () => {
    const zeros: Random = { bytes: (k) => new Uint8Array(k) };
    const { core, store, feature } = setup({ codeLength: 6 }, zeros);
    await feature.service.send({ email: "x@example.com", purpose: "sign-in" }, SERVER_CALL);
    expect(core.getOtp("x@example.com")).toBe("000000");
    const identifier = otpIdentifier("sign-in", "x@example.com");
    // HMAC-SHA-256 under HKDF-SHA-256(secret), computed with node:crypto, an implementation independent of core's.
    const key = Buffer.from(hkdfSync("sha256", "s".repeat(32), "latchkey/otp-code", "hmac-sha-256 v1", 32));
    const expected = createHmac("sha256", key).update(`${identifier}\u0000000000`).digest("base64url");
    const row = (await store.verifications.findByIdentifier(identifier))!;
    expect(row.valueHash).toBe(expected);
    expect(row.valueHash).not.toBe(hashSecret("000000"));
  });

  it("parallel wrong codes destroy the row exactly once (one TOO_MANY_ATTEMPTS), never more attempts than maxAttempts", async () => {
    const { core, store, feature } = setup({ maxAttempts: 3 });
    await feature.service.send({ email: "x@example.com", purpose: "sign-in" }, SERVER_CALL);
    const wrong = core.getOtp("x@example.com") === "111111" ? "222222" : "111111";
    const failed: number[] = [];
    core.events.on("OtpVerifyFailed", (e) => void failed.push(e.attemptCount));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        feature.service.check({ email: "x@example.com", purpose: "sign-in", otp: wrong }, SERVER_CALL),
      ),
    );
    const codes = results.map((r) => (r.status === "rejected" ? (r.reason as AuthError).code : "ok"));
    expect(codes.filter((c) => c === "TOO_MANY_ATTEMPTS")).toHaveLength(1);
    expect(codes.filter((c) => c === "INVALID_OTP")).toHaveLength(9);
    expect(Math.max(...failed)).toBe(3);
    expect(await store.verifications.findByIdentifier(otpIdentifier("sign-in", "x@example.com"))).toBeNull();
  });

  it("server calls validate the code format like HTTP does", async () => {
    const { feature } = setup();
    for (const otp of ["12345", "1234567", "abcdef", 123456 as never]) {
      await expect(
        feature.service.check({ email: "x@example.com", purpose: "sign-in", otp }, SERVER_CALL),
      ).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    }
  });
});
