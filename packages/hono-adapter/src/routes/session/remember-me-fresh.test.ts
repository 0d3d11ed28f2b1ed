import { describe, expect, it } from "vitest";
import { apiKeys, emailOtp, hashSecret } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function signIn(t: TestAuth, body: Record<string, unknown>) {
  const res = await t.request("POST", "/sign-in/email", {
    body: { email: "ada@example.com", password: PASSWORD, ...body },
    ip: "203.0.113.40",
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { credentials: { token: string; expiresAt: string } };
  return { res, token: json.credentials.token, expiresAt: json.credentials.expiresAt };
}

describe("rememberMe", () => {
  it("false: a browser-session cookie and a session of session.shortExpiresIn that does not slide", async () => {
    const t = createTestAuth({ session: { expiresIn: "7d", updateAge: "1h", shortExpiresIn: "12h" } });
    await t.signUp("ada@example.com", PASSWORD);
    const start = t.clock.now();
    const { res, token, expiresAt } = await signIn(t, { rememberMe: false });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-latchkey\.session=[A-Za-z0-9_-]{43}; Path=\//);
    expect(cookie).not.toMatch(/Max-Age|Expires/i);
    expect(new Date(expiresAt).getTime()).toBe(start + 12 * HOUR);
    const stored = await t.store.sessions.findByTokenHash(hashSecret(token));
    expect(stored?.session.rememberMe).toBe(false);
    // Used past updateAge: a remembered session would slide (and re-send its cookie); this one does not.
    t.clock.advance(6 * HOUR);
    const mid = await t.request("GET", "/get-session", { headers: cookieHeaders(token) });
    expect(await mid.json()).not.toBeNull();
    expect(mid.headers.get("set-cookie")).toBeNull();
    expect((await t.store.sessions.findByTokenHash(hashSecret(token)))?.session.expiresAt.getTime()).toBe(
      start + 12 * HOUR,
    );
    t.clock.advance(6 * HOUR);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(token) })).json()).toBeNull();
  });

  it("default (and true): a Max-Age cookie and a session of session.expiresIn that slides", async () => {
    const t = createTestAuth({ session: { expiresIn: "7d", updateAge: "1h" } });
    await t.signUp("ada@example.com", PASSWORD);
    for (const body of [{}, { rememberMe: true }]) {
      const start = t.clock.now();
      const { res, token, expiresAt } = await signIn(t, body);
      expect(res.headers.get("set-cookie")).toMatch(/; Max-Age=604800;/);
      expect(new Date(expiresAt).getTime()).toBe(start + 7 * DAY);
      t.clock.advance(2 * HOUR);
      const slid = await t.request("GET", "/get-session", { headers: cookieHeaders(token) });
      expect(slid.headers.get("set-cookie")).toMatch(/; Max-Age=604800;/);
      expect((await t.store.sessions.findByTokenHash(hashSecret(token)))?.session.rememberMe).toBe(true);
    }
  });

  it("the default shortExpiresIn is one day, and a non-boolean rememberMe is 400", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com", PASSWORD);
    const start = t.clock.now();
    const { expiresAt } = await signIn(t, { rememberMe: false });
    expect(new Date(expiresAt).getTime()).toBe(start + DAY);
    const bad = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD, rememberMe: "no" },
    });
    expect(bad.status).toBe(400);
  });

  it("the email OTP sign-in takes rememberMe too", async () => {
    const t = createTestAuth({ plugins: [emailOtp()] });
    await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "otp@example.com", purpose: "sign-in" },
    });
    const otp = t.auth.getOtp("otp@example.com");
    expect(otp).toBeTruthy();
    const res = await t.request("POST", "/sign-in/email-otp", {
      body: { email: "otp@example.com", otp, rememberMe: false },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).not.toMatch(/Max-Age/);
    const { credentials } = (await res.json()) as { credentials: { token: string } };
    expect((await t.store.sessions.findByTokenHash(hashSecret(credentials.token)))?.session.rememberMe).toBe(false);
  });
});

describe("session.freshAge", () => {
  it("refuses an old session with 403 SESSION_NOT_FRESH at change-password and changes nothing; a new sign-in is fresh", async () => {
    const t = createTestAuth({ session: { expiresIn: "30d", updateAge: "1h", freshAge: "1d" } });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD);
    const before = await t.store.accounts.listByUser(userId);
    // Kept alive by sliding renewals: still old, counted from its creation.
    for (let i = 0; i < 5; i++) {
      t.clock.advance(6 * HOUR);
      expect(await (await t.request("GET", "/get-session", { headers: bearer(token) })).json()).not.toBeNull();
    }
    const res = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: PASSWORD, newPassword: "another long password" },
    });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("SESSION_NOT_FRESH");
    expect(await t.store.accounts.listByUser(userId)).toEqual(before);
    const fresh = await signIn(t, {});
    const ok = await t.request("POST", "/change-password", {
      headers: bearer(fresh.token),
      body: { currentPassword: PASSWORD, newPassword: "another long password" },
    });
    expect(ok.status).toBe(200);
    // Revoking sessions never needs a fresh one.
    const revoke = await t.request("POST", "/revoke-other-sessions", { headers: bearer(token) });
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toEqual({ revoked: 1 });
  });

  it("guards set-password, delete-account, delete-account/request, request-email-change and api-key/create", async () => {
    const t = createTestAuth({
      plugins: [emailOtp({ emailChange: { enabled: true, verifyCurrentEmail: false } }), apiKeys()],
    });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD);
    t.clock.advance(DAY + 1000);
    const calls: Array<[string, Record<string, unknown>]> = [
      ["/set-password", { newPassword: "another long password" }],
      ["/delete-account", { password: PASSWORD }],
      ["/delete-account/request", {}],
      ["/email-otp/request-email-change", { newEmail: "new@example.com" }],
      ["/api-key/create", { name: "ci" }],
      ["/change-password", { currentPassword: PASSWORD, newPassword: "another long password" }],
    ];
    for (const [path, body] of calls) {
      const res = await t.request("POST", path, { headers: bearer(token), body });
      expect([path, res.status]).toEqual([path, 403]);
      expect((await res.json()).code).toBe("SESSION_NOT_FRESH");
    }
    expect(await t.store.users.findById(userId)).not.toBeNull();
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    await t.settle();
    expect(t.emails.sent.filter((m) => m.to === "new@example.com" || /delet/i.test(m.subject))).toEqual([]);
  });

  it("freshAge: null turns the check off", async () => {
    const t = createTestAuth({ session: { expiresIn: "30d", freshAge: null } });
    const { token } = await t.signUp("ada@example.com", PASSWORD);
    t.clock.advance(10 * DAY);
    const res = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: PASSWORD, newPassword: "another long password" },
    });
    expect(res.status).toBe(200);
  });
});
