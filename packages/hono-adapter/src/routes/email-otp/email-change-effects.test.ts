import { describe, expect, it } from "vitest";
import type { AuthEvent } from "@latchkey/core";
import { bearer } from "../../../test/test-auth.ts";
import { requestDeletion } from "../../../test/routes/account/test-fixtures.ts";
import { createOtpTestAuth, freshIp } from "./fixtures.ts";

// Review fix 30.3: an email change takes down what was bound to the old address.

const PASSWORD = "correct horse battery";
const flush = () => new Promise((r) => setTimeout(r, 0));

describe("email change leaves nothing of the old address alive (review fix 30.3)", () => {
  it("a reset link and a delete-account link requested before the change die with it, other sessions are revoked, the old address is told", async () => {
    const t = createOtpTestAuth({ emailChange: { enabled: true } });
    const ada = await t.signUp("ada@example.com");
    const other = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      ip: freshIp(),
    });
    const otherToken = (await other.json()).credentials.token as string;
    // Before the change: a pending reset link, a delete-account link and a sign-in code for the old address.
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" }, ip: freshIp() });
    await flush();
    const resetToken = t.auth.getOtp("ada@example.com")!;
    const deleteToken = await requestDeletion(t, ada.token, "ada@example.com");
    const signInCode = (await t.sendCode("ada@example.com", "sign-in"))!;
    const events: AuthEvent[] = [];
    t.auth.events.onAny((e) => void events.push(e));

    const req = await t.post(
      "/email-otp/request-email-change",
      { newEmail: "ada@new.example" },
      { headers: bearer(ada.token) },
    );
    expect(req.status).toBe(200);
    const changed = await t.post(
      "/email-otp/change-email",
      { newEmail: "ada@new.example", otp: t.auth.getOtp("ada@new.example")! },
      { headers: bearer(ada.token) },
    );
    expect(changed.status).toBe(200);
    await flush();

    const reset = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "attacker's new passphrase" },
      ip: freshIp(),
    });
    expect(reset.status).toBe(400);
    expect((await reset.json()).code).toBe("INVALID_TOKEN");
    const del = await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken }, ip: freshIp() });
    expect(del.status).toBe(400);
    expect(await t.store.users.findById(ada.userId)).not.toBeNull();
    const otp = await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: signInCode });
    expect(otp.status).not.toBe(200);
    for (const identifier of [
      `password-reset:${ada.userId}`,
      `delete-account:${ada.userId}`,
      "otp:sign-in:ada@example.com",
      `otp:email-change:${ada.userId}`,
    ])
      expect(await t.store.verifications.findByIdentifier(identifier), identifier).toBeNull();

    // The other session is gone, the one that made the change stays.
    expect(await (await t.request("GET", "/get-session", { headers: bearer(otherToken) })).json()).toBeNull();
    expect(await (await t.request("GET", "/get-session", { headers: bearer(ada.token) })).json()).not.toBeNull();
    expect(events).toContainEqual(
      expect.objectContaining({ type: "SessionRevoked", userId: ada.userId, reason: "email-changed", count: 1 }),
    );
    // The old address learns of the change.
    await t.settle();
    const notice = t.emails.last("ada@example.com")!;
    expect(notice.template).toBe("email-changed");
    expect(notice.text).toContain("ada@new.example");
    // The password still works at the new address.
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@new.example", password: PASSWORD },
      ip: freshIp(),
    });
    expect(signIn.status).toBe(200);
  });
});
