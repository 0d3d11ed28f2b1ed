import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

describe("an OTP submitted after its row is gone tells the person to request a new code", () => {
  it("after TOO_MANY_ATTEMPTS, after use, and (identically) for an email that was never sent one", async () => {
    const t = createTestAuth({ plugins: [emailOtp({ maxAttempts: 2 })], rateLimit: { enabled: false } });
    const codes: Record<string, string> = {};
    t.auth.events.on("OtpGenerated", (e) => void (codes[e.identifier] = e.plain));
    const send = (email: string) =>
      t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } });
    const signIn = (email: string, otp: string) => t.request("POST", "/sign-in/email-otp", { body: { email, otp } });
    await send("ada@example.com");
    const right = codes["ada@example.com"] as string;
    const wrong = right.replace(/^./, (d) => String((Number(d) + 1) % 10));
    expect((await signIn("ada@example.com", wrong)).status).toBe(400);
    const destroyed = await signIn("ada@example.com", wrong);
    expect((await destroyed.json()).code).toBe("TOO_MANY_ATTEMPTS");
    expect(await t.store.verifications.findByIdentifier("otp:sign-in:ada@example.com")).toBeNull();
    const late = await signIn("ada@example.com", right);
    expect(late.status).toBe(400);
    const lateBody = await late.json();
    expect(lateBody).toEqual({ code: "INVALID_OTP", message: expect.stringMatching(/request a new code/) });

    await send("bob@example.com");
    const bobCode = codes["bob@example.com"] as string;
    expect((await signIn("bob@example.com", bobCode)).status).toBe(200);
    const replay = await signIn("bob@example.com", bobCode);
    expect(await replay.json()).toEqual(lateBody);

    // Unknown address (no row ever): the very same answer, so the message reveals nothing about who got a code.
    expect(await (await signIn("nobody@example.com", "123456")).json()).toEqual(lateBody);
  });
});
