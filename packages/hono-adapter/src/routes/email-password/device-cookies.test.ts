import { describe, expect, it } from "vitest";
import { createTestAuth, deviceCookieOf, type TestAuth } from "../../../test/test-auth.ts";

// Issue 42: device cookies (OWASP). Run on memory, libSQL and PostgreSQL (the hono-adapter store projects).

const PASSWORD = "correct horse battery";
const WRONG = "wrong password!";
const DEVICE = "__Host-latchkey.device";

/** Device cookies on (the default; the harness turns them off for suites that read the session cookie alone). */
const deviceAuth = () => createTestAuth({ deviceCookies: { enabled: true } });

async function signIn(t: TestAuth, email: string, ip: string, device?: string | null, password = PASSWORD) {
  const headers: Record<string, string> = device ? { cookie: `${DEVICE}=${device}` } : {};
  return t.request("POST", "/sign-in/email", { body: { email, password }, ip, headers });
}

/** Signs ada up and in; answers her device token. */
async function knownDevice(t: TestAuth): Promise<string> {
  await t.signUp("ada@example.com", PASSWORD);
  const res = await signIn(t, "ada@example.com", "198.51.100.200");
  expect(res.status).toBe(200);
  const device = deviceCookieOf(res);
  expect(device).not.toBeNull();
  return device!;
}

describe("device cookies", () => {
  it("a sign-in sets a signed, HttpOnly, host-only device cookie; sign-up does too", async () => {
    const t = deviceAuth();
    const up = await t.request("POST", "/sign-up/email", { body: { email: "bob@example.com", password: PASSWORD } });
    expect(deviceCookieOf(up)).toMatch(/^[\w-]{22}\.[\w-]{43}\.[\w-]{43}$/);
    const res = await signIn(t, "bob@example.com", "198.51.100.1");
    const header = res.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE}=`))!;
    expect(header).toMatch(/; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    expect(header).not.toContain("Domain=");
  });

  it("a known device is not subject to the per-address rule; each use rotates it and the old value stops counting", async () => {
    const t = deviceAuth();
    let device = await knownDevice(t);
    const ip = "203.0.113.50";
    // The address spends its whole sign-in rule (10 a minute) on its own.
    for (let i = 0; i < 10; i++) await signIn(t, "nobody@example.com", ip, null, WRONG);
    expect((await signIn(t, "ada@example.com", ip)).status).toBe(429);
    const previous = device;
    for (let i = 0; i < 3; i++) {
      const res = await signIn(t, "ada@example.com", ip, device);
      expect(res.status).toBe(200);
      const next = deviceCookieOf(res)!;
      expect(next).not.toBe(device);
      device = next;
    }
    // The first value was rotated away: the request is anonymous again, and the address is over its rule.
    const stale = await signIn(t, "ada@example.com", ip, previous);
    expect(stale.status).toBe(429);
    expect(((await stale.json()) as { code: string }).code).toBe("RATE_LIMITED");
  });

  it("is bound to its account: ada's device token is nothing for bob's sign-in", async () => {
    const t = deviceAuth();
    const device = await knownDevice(t);
    await t.signUp("bob@example.com", PASSWORD);
    const ip = "203.0.113.51";
    for (let i = 0; i < 10; i++) await signIn(t, "nobody@example.com", ip, null, WRONG);
    expect((await signIn(t, "bob@example.com", ip, device)).status).toBe(429);
    expect((await signIn(t, "ada@example.com", ip, device)).status).toBe(200);
  });

  it("counts a known device's failures apart: the device locks, the account and the owner's other ways in do not", async () => {
    const t = deviceAuth();
    const device = await knownDevice(t);
    for (let i = 0; i < 5; i++)
      expect((await signIn(t, "ada@example.com", "203.0.113.52", device, WRONG)).status).toBe(401);
    const locked = await signIn(t, "ada@example.com", "203.0.113.52", device);
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
    // The account itself counted none of these: from another browser the right password still works.
    expect((await signIn(t, "ada@example.com", "198.51.100.9")).status).toBe(200);
  });

  it("the account locked by strangers still signs in from its owner's known device", async () => {
    const t = deviceAuth();
    const device = await knownDevice(t);
    for (let i = 0; i < 6; i++) await signIn(t, "ada@example.com", `192.0.2.${i + 1}`, null, WRONG);
    const stranger = await signIn(t, "ada@example.com", "192.0.2.77");
    expect(stranger.status).toBe(429);
    expect(((await stranger.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
    expect((await signIn(t, "ada@example.com", "192.0.2.78", device)).status).toBe(200);
  });

  it("a password change and a password reset revoke every device cookie of the account", async () => {
    const t = deviceAuth();
    const device = await knownDevice(t);
    const session = await signIn(t, "ada@example.com", "198.51.100.201", device);
    const rotated = deviceCookieOf(session)!;
    const token = ((await session.json()) as { credentials: { token: string } }).credentials.token;
    const changed = await t.request("POST", "/change-password", {
      body: { currentPassword: PASSWORD, newPassword: "a brand new password" },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(changed.status).toBe(200);
    // Locked by strangers: only a known device gets in, and the cookie from before the change is no longer one.
    for (let i = 0; i < 6; i++) await signIn(t, "ada@example.com", `192.0.2.${i + 1}`, null, WRONG);
    const after = await signIn(t, "ada@example.com", "192.0.2.90", rotated, "a brand new password");
    expect(after.status).toBe(429);

    const t2 = deviceAuth();
    const before = await knownDevice(t2);
    await t2.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const link = t2.auth.core.getOtp("ada@example.com")!;
    const reset = await t2.request("POST", "/reset-password", {
      body: { token: link, newPassword: "reset password!" },
    });
    expect(reset.status).toBe(200);
    const ip = "203.0.113.53";
    for (let i = 0; i < 10; i++) await signIn(t2, "nobody@example.com", ip, null, WRONG);
    expect((await signIn(t2, "ada@example.com", ip, before, "reset password!")).status).toBe(429);
  });

  it("Bearer clients get credentials.deviceToken and send it back in the latchkey-device header or the body", async () => {
    const t = deviceAuth();
    await t.signUp("ada@example.com", PASSWORD);
    const first = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      headers: { "latchkey-credentials": "bearer", origin: "https://app.example" },
    });
    const { credentials } = (await first.json()) as { credentials: { deviceToken: string } };
    expect(credentials.deviceToken).toMatch(/^[\w-]{22}\.[\w-]{43}\.[\w-]{43}$/);
    const ip = "203.0.113.54";
    for (let i = 0; i < 10; i++) await signIn(t, "nobody@example.com", ip, null, WRONG);
    const byHeader = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      headers: { "latchkey-device": credentials.deviceToken },
      ip,
    });
    expect(byHeader.status).toBe(200);
    const next = ((await byHeader.json()) as { credentials: { deviceToken: string } }).credentials.deviceToken;
    const byBody = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD, deviceToken: next },
      ip,
    });
    expect(byBody.status).toBe(200);
    // A browser page's answer never shows the token to scripts.
    const page = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      headers: { origin: "https://app.example" },
    });
    expect(await page.json()).not.toHaveProperty("credentials");
  });

  it("account deletion takes the device rows with the user", async () => {
    const t = deviceAuth();
    const device = await knownDevice(t);
    const user = await t.store.users.findByEmail("ada@example.com");
    await t.auth.api.deleteUser(user!.id);
    const [deviceId] = device.split(".");
    expect(await t.store.verifications.findByIdentifier(`device:${user!.id}:${deviceId}`)).toBeNull();
  });
});
