import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";

describe("sign-in", () => {
  it("signs in by email or username with a new token every time", async () => {
    const t = createTestAuth();
    const first = await t.signUp("grace@example.com", PASSWORD, { username: "Grace_H" });
    const a = await t.request("POST", "/sign-in/email", { body: { email: "grace@example.com", password: PASSWORD } });
    const b = await t.request("POST", "/sign-in/email", { body: { username: "grace_h", password: PASSWORD } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const ta = (await a.json()).credentials.token;
    const tb = (await b.json()).credentials.token;
    expect(new Set([first.token, ta, tb]).size).toBe(3);
  });

  it("answers a wrong password and an unknown email identically", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const wrong = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "wrong password!" },
    });
    const unknown = await t.request("POST", "/sign-in/email", {
      body: { email: "nobody@example.com", password: "wrong password!" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("locks the identifier after 5 failures in 15 minutes, even for the right password, then unlocks", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: "wrong password!" },
        ip: `203.0.113.${i}`,
      });
      expect(res.status).toBe(401);
    }
    const locked = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      ip: "203.0.113.99",
    });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
    t.clock.advance(15 * 60_000);
    const ok = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      ip: "203.0.113.99",
    });
    expect(ok.status).toBe(200);
  });

  it("emits UserSignedIn and SignInFailed without the password", async () => {
    const t = createTestAuth();
    const seen: string[] = [];
    t.auth.events.onAny((e) => void seen.push(JSON.stringify(e)));
    await t.signUp("ada@example.com");
    await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "wrong password!" } });
    await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } });
    expect(seen.some((e) => e.includes('"SignInFailed"'))).toBe(true);
    expect(seen.some((e) => e.includes('"UserSignedIn"'))).toBe(true);
    expect(seen.join()).not.toContain(PASSWORD);
    expect(seen.join()).not.toContain("wrong password!");
  });
});

describe("sessions", () => {
  it("get-session honours the cookie and Bearer, and answers null without either", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    for (const headers of [cookieHeaders(token), bearer(token)]) {
      const res = await t.request("GET", "/get-session", { headers });
      expect(res.status).toBe(200);
      expect((await res.json()).user.id).toBe(userId);
    }
    const anon = await t.request("GET", "/get-session");
    expect(await anon.json()).toBeNull();
    const junk = await t.request("GET", "/get-session", { headers: bearer("x".repeat(43)) });
    expect(await junk.json()).toBeNull();
  });

  it("slides the session forward after updateAge and re-sends the cookie", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const before = (await t.store.sessions.findByTokenHash(hashSecret(token)))!.session.expiresAt;
    t.clock.advance(2 * 86_400_000);
    const res = await t.request("GET", "/get-session", { headers: cookieHeaders(token) });
    expect(res.headers.get("set-cookie")).toContain("Max-Age=604800");
    const after = (await t.store.sessions.findByTokenHash(hashSecret(token)))!.session.expiresAt;
    expect(after.getTime() - before.getTime()).toBe(2 * 86_400_000);
  });

  it("expired sessions are gone", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    t.clock.advance(8 * 86_400_000);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(token) })).json()).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).toBeNull();
  });

  it("sign-out deletes the session row and clears the cookie", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/sign-out", { headers: cookieHeaders(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-latchkey\.session=; Max-Age=0/);
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).toBeNull();
  });
});
