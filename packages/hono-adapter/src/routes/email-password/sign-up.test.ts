import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";

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
