import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";

describe("sign-up", () => {
  it("creates the user, a credential account with an argon2id hash and a session whose stored hash is not the token", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "  Ada@Example.COM ", password: PASSWORD, name: "Ada" },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.user).toMatchObject({ email: "ada@example.com", emailVerified: false, name: "Ada" });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(
      /^__Host-latchkey\.session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    const token = cookie.split(";")[0]!.split("=")[1]!;
    expect(body.credentials.token).toBe(token);
    const user = await t.store.users.findByEmail("ada@example.com");
    const accounts = await t.store.accounts.listByUser(user!.id);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.passwordHash).toMatch(/^\$argon2id\$v=19\$/);
    expect(accounts[0]!.passwordHash).not.toContain(PASSWORD);
    const stored = await t.store.sessions.findByTokenHash(hashSecret(token));
    expect(stored!.session.tokenHash).not.toBe(token);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses an existing email with 422 USER_ALREADY_EXISTS and writes nothing", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ADA@example.com", password: "another password" },
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ code: "USER_ALREADY_EXISTS", message: expect.any(String) });
  });

  it("rejects bad emails, short and long passwords with clear codes", async () => {
    const t = createTestAuth();
    const cases: Array<[unknown, number, string]> = [
      [{ email: "not-an-email", password: PASSWORD }, 400, "INVALID_EMAIL"],
      [{ email: `${"a".repeat(250)}@x.io`, password: PASSWORD }, 400, "INVALID_EMAIL"],
      [{ email: "a@example.com", password: "short" }, 400, "PASSWORD_TOO_SHORT"],
      [{ email: "a@example.com", password: "x".repeat(129) }, 400, "PASSWORD_TOO_LONG"],
      [{ email: "a@example.com" }, 400, "INVALID_REQUEST"],
      [{ email: 42, password: PASSWORD }, 400, "INVALID_REQUEST"],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.request("POST", "/sign-up/email", { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await res.json()).code).toBe(code);
    }
    expect(await t.store.users.findByEmail("a@example.com")).toBeNull();
  });

  it("refuses display-name, list and group syntax at sign-up (a plain address only) and sends nothing", async () => {
    const t = createTestAuth();
    let ip = 0;
    const refused = [
      '"ceo"<attacker@evil.com>',
      "ceo <attacker@evil.com>",
      "<attacker@evil.com>",
      "a@evil.com,b.co",
      "a@evil.com, b@x.co",
      "a@evil.com;b@x.co",
      "group:a@evil.com;",
      '"quoted local"@example.com',
      "a b@example.com",
      "a(comment)@example.com",
      "a\\b@example.com",
      "a@[192.0.2.1]",
      "a@example.com>",
      "a@-example.com",
      "a@@example.com",
    ];
    for (const email of refused) {
      const res = await t.request("POST", "/sign-up/email", {
        body: { email, password: PASSWORD },
        ip: `10.9.0.${ip++}`,
      });
      expect(res.status, email).toBe(400);
      expect((await res.json()).code, email).toBe("INVALID_EMAIL");
    }
    expect(t.emails.sent).toEqual([]);
    expect(await t.store.users.findByEmail("attacker@evil.com")).toBeNull();
    // Plain addresses with the usual extras still work.
    for (const email of ["o'brien+tag@sub.example.co.uk", "ünïcode@bücher.example", "x_y-z.1@xn--p1ai.example"]) {
      const res = await t.request("POST", "/sign-up/email", {
        body: { email, password: PASSWORD },
        ip: `10.9.0.${ip++}`,
      });
      expect(res.status, email).toBe(200);
      expect((await t.store.users.findByEmail(email))?.email).toBe(email);
    }
  });

  it("ignores unknown body fields (never writes emailVerified or id)", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "eve@example.com", password: PASSWORD, emailVerified: true, id: "admin" },
    });
    expect(res.status).toBe(200);
    const user = await t.store.users.findByEmail("eve@example.com");
    expect(user!.emailVerified).toBe(false);
    expect(user!.id).not.toBe("admin");
  });

  it("requireUsername applies to interactive sign-up only", async () => {
    const t = createTestAuth({ emailPassword: { requireUsername: true } });
    const res = await t.request("POST", "/sign-up/email", { body: { email: "u@example.com", password: PASSWORD } });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("USERNAME_REQUIRED");
    const user = await t.auth.api.createUser({ email: "u@example.com", password: PASSWORD });
    expect(user.username).toBeNull();
  });
});

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

describe("change-password", () => {
  it("needs a session, refuses a wrong current password and can revoke other sessions", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const other = (
      await (
        await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })
      ).json()
    ).credentials.token;
    const anon = await t.request("POST", "/change-password", {
      body: { currentPassword: PASSWORD, newPassword: "a new password" },
    });
    expect(anon.status).toBe(401);
    expect((await anon.json()).code).toBe("INVALID_CREDENTIALS");
    const wrong = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: "not it at all", newPassword: "a new password" },
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("INVALID_PASSWORD");
    const ok = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: PASSWORD, newPassword: "a new password", revokeOtherSessions: true },
    });
    expect(ok.status).toBe(200);
    expect(await t.store.sessions.findByTokenHash(hashSecret(other))).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).not.toBeNull();
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "a new password" },
    });
    expect(signIn.status).toBe(200);
  });
});

describe("password reset by emailed token", () => {
  it("answers the same for known and unknown emails and emails only the known one", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const known = await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const unknown = await t.request("POST", "/request-password-reset", {
      body: { email: "nobody@example.com" },
      ip: "192.0.2.50",
    });
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual(await unknown.json());
    await t.settle();
    expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
    expect(t.emails.last()!.text).toContain("https://app.example/reset-password?token=");
  });

  it("resets once with the token, revokes every session, and refuses reuse and expiry", async () => {
    const t = createTestAuth();
    const { token: session } = await t.signUp("ada@example.com");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const resetToken = t.auth.getOtp("ada@example.com")!;
    const ok = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "brand new password" },
    });
    expect(ok.status).toBe(200);
    expect(await t.store.sessions.findByTokenHash(hashSecret(session))).toBeNull();
    const again = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "another password" },
    });
    expect(again.status).toBe(400);
    expect((await again.json()).code).toBe("INVALID_TOKEN");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" }, ip: "192.0.2.77" });
    const late = t.auth.getOtp("ada@example.com")!;
    t.clock.advance(61 * 60_000);
    const expired = await t.request("POST", "/reset-password", {
      body: { token: late, newPassword: "another password" },
    });
    expect((await expired.json()).code).toBe("INVALID_TOKEN");
    expect(
      (
        await t.request("POST", "/sign-in/email", {
          body: { email: "ada@example.com", password: "brand new password" },
        })
      ).status,
    ).toBe(200);
  });

  it("20 parallel resets with one token: exactly one succeeds", async () => {
    const t = createTestAuth({ rateLimit: { enabled: false } });
    await t.signUp("ada@example.com");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const token = t.auth.getOtp("ada@example.com")!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request("POST", "/reset-password", { body: { token, newPassword: `password number ${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("refuses untrusted redirect targets (open redirect in emailed links)", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    for (const [i, redirectTo] of [
      "//evil.example/x",
      "/\\evil.example",
      "https://trusted.example.evil.com/x",
      "javascript:alert(1)",
    ].entries()) {
      const res = await t.request("POST", "/request-password-reset", {
        body: { email: "ada@example.com", redirectTo },
        ip: `192.0.2.${100 + i}`,
      });
      expect(res.status, redirectTo).toBe(400);
      expect((await res.json()).code).toBe("INVALID_CALLBACK_URL");
    }
    const ok = await t.request("POST", "/request-password-reset", {
      body: { email: "ada@example.com", redirectTo: "https://trusted.example/reset" },
    });
    expect(ok.status).toBe(200);
  });
});
