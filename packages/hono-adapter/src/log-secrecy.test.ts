import { describe, expect, it } from "vitest";
import { apiKeys, argon2idHasher, auditLog, emailOtp, jwt, webCryptoRandom, type AuthEvent, type Store } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth } from "./create-auth.ts";
import { storeForTestRun, testStoreKind } from "./testing/test-stores.ts";
import { captureOutput, findLeaks, type KnownSecret } from "./testing/secret-scanner.ts";

// Every flow of every feature, in production mode with the default console sender, on this run's store
// (memory, libSQL or PostgreSQL). Everything a log could get is captured: stdout, stderr, every event (but
// OtpGenerated, the one event meant to carry a code for custom delivery), every audit row and every error body.
// None may contain a code, token, key, password, JWT, the secret, or a hash of one.

const BASE = "https://app.example";
const SECRET = "log-secrecy-secret-0123456789abcdefghijklmnop";

interface Harness {
  call(method: string, path: string, init?: { body?: unknown; token?: string; headers?: Record<string, string> }): Promise<Response>;
  json<T = Record<string, unknown>>(method: string, path: string, init?: { body?: unknown; token?: string; headers?: Record<string, string> }, status?: number): Promise<T>;
  codes: Array<{ identifier: string; purpose: string; plain: string }>;
  latest(identifier: string, purpose: string): string;
}

describe(`no secret reaches a log, an event, an audit row or an error body (${testStoreKind()} store, production, console sender)`, () => {
  it("sign-up to account deletion, OTP of every purpose, links, resets, email change, API keys, JWT", async () => {
    const store: Store = storeForTestRun() ?? memoryStore();
    const auth = createAuth({
      secret: SECRET,
      baseUrl: BASE,
      database: store,
      // environment defaults to production and email.sender to the console sender: exactly what is under test.
      passwordHasher: argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } }),
      rateLimit: { enabled: false },
      plugins: [emailOtp({ codeLength: 10, emailChange: { enabled: true } }), apiKeys({ grantablePermissions: { files: ["read"] } }), jwt(), auditLog()],
    });
    expect(auth.core.config.environment).toBe("production");

    const secrets: KnownSecret[] = [{ label: "the secret option", value: SECRET }];
    const keep = (label: string, value: string | null | undefined) => {
      if (!value) throw new Error(`no ${label} to keep`);
      secrets.push({ label, value });
      return value;
    };
    const events: AuthEvent[] = [];
    const codes: Harness["codes"] = [];
    auth.events.onAny((e) => {
      if (e.type === "OtpGenerated") {
        codes.push({ identifier: e.identifier, purpose: e.purpose, plain: e.plain });
        keep(`${e.purpose} code/token`, e.plain);
      } else {
        events.push(e);
      }
    });
    const errorBodies: string[] = [];
    const background: Promise<unknown>[] = [];
    const executionCtx = { waitUntil: (p: Promise<unknown>) => void background.push(p), passThroughOnException: () => undefined };

    const h: Harness = {
      async call(method, path, init = {}) {
        const headers: Record<string, string> = { ...init.headers };
        if (init.token) headers.authorization = `Bearer ${init.token}`;
        if (init.body !== undefined) headers["content-type"] = "application/json";
        const res = await auth.handler(new Request(`${BASE}/auth${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }), {}, executionCtx);
        const jwtHeader = res.headers.get("set-auth-jwt");
        if (jwtHeader) keep("JWT (set-auth-jwt)", jwtHeader);
        if (res.status >= 400) errorBodies.push(`${method} ${path} ${res.status} ${await res.clone().text()}`);
        return res;
      },
      async json(method, path, init = {}, status = 200) {
        const res = await h.call(method, path, init);
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBe(status);
        return JSON.parse(text);
      },
      codes,
      latest(identifier, purpose) {
        const found = [...codes].reverse().find((c) => c.identifier === identifier && c.purpose === purpose);
        if (!found) throw new Error(`no ${purpose} code for ${identifier}`);
        return found.plain;
      },
    };
    const session = (r: Record<string, unknown>) => keep("session token", (r.credentials as { token: string }).token);
    const storedPasswordHash = async (userId: string) => {
      const account = (await store.accounts.listByUser(userId)).find((a) => a.passwordHash);
      keep("stored password hash", account?.passwordHash);
    };

    const capture = captureOutput();
    try {
      // Email and password: sign-up, wrong and right sign-in, get-session (set-auth-jwt), JWT, sign-out.
      const p1 = keep("password", "first password of ada");
      const ada = await h.json<{ user: { id: string }; credentials: { token: string } }>("POST", "/sign-up/email", { body: { email: "ada@example.com", password: p1, username: "ada" } });
      const adaId = ada.user.id;
      session(ada);
      await storedPasswordHash(adaId);
      await h.json("POST", "/sign-up/email", { body: { email: "ada@example.com", password: keep("password", "someone else's password") } }, 422);
      await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: keep("password", "a wrong password guess") } }, 401);
      await h.json("POST", "/sign-in/email", { body: { username: "ada", password: keep("password", "another wrong guess!") } }, 401);
      let t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p1 } }));
      await h.json("GET", "/get-session", { token: t });
      keep("JWT", (await h.json<{ token: string }>("POST", "/token", { token: t })).token);
      keep("JWT", (await h.json<{ token: string }>("GET", "/token", { token: t })).token);
      await h.json("GET", "/jwks");
      await h.json("GET", "/get-session", { token: keep("forged session token", "f".repeat(43)) });

      // Profile, verify-password, change-password.
      await h.json("PATCH", "/user", { token: t, body: { name: "Ada Lovelace" } });
      await h.json("POST", "/verify-password", { token: t, body: { password: p1 } });
      await h.json("POST", "/verify-password", { token: t, body: { password: keep("password", "not the password") } }, 401);
      const p2 = keep("password", "second password of ada");
      await h.json("POST", "/change-password", { token: t, body: { currentPassword: keep("password", "wrong current pw"), newPassword: keep("password", "never set password") } }, 401);
      await h.json("POST", "/change-password", { token: t, body: { currentPassword: p1, newPassword: p2, revokeOtherSessions: true } });
      await storedPasswordHash(adaId);

      // Link verification (send, wrong token, right token).
      await h.json("POST", "/send-verification-email", { body: { email: "ada@example.com" } });
      await Promise.all(background);
      const link = h.latest("ada@example.com", "email-verification-link");
      await h.json("POST", "/verify-email", { body: { email: "ada@example.com", token: keep("forged link token", `${link.slice(0, -2)}xx`) } }, 400);
      t = session(await h.json("POST", "/verify-email", { body: { email: "ada@example.com", token: link } }));

      // Password reset by token (request, reset, replay).
      await h.json("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
      await h.json("POST", "/request-password-reset", { body: { email: "nobody@example.com" } });
      await Promise.all(background);
      const resetToken = h.latest("ada@example.com", "password-reset-link");
      const p3 = keep("password", "third password of ada");
      await h.json("POST", "/reset-password", { body: { token: resetToken, newPassword: p3 } });
      await h.json("POST", "/reset-password", { body: { token: resetToken, newPassword: keep("password", "replayed reset pw") } }, 400);
      await storedPasswordHash(adaId);
      t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p3 } }));

      // Email OTP of every purpose: sign-in (wrong, right, replay), check + verify-email, reset by OTP.
      const otp = (body: Record<string, unknown>) => h.json("POST", "/email-otp/send-verification-otp", { body });
      await otp({ email: "ada@example.com", purpose: "sign-in" });
      await Promise.all(background);
      const signInCode = h.latest("ada@example.com", "sign-in");
      await h.json("POST", "/sign-in/email-otp", { body: { email: "ada@example.com", otp: keep("guessed code", signInCode === "0123456789" ? "9876543210" : "0123456789") } }, 400);
      t = session(await h.json("POST", "/sign-in/email-otp", { body: { email: "ada@example.com", otp: signInCode } }));
      await h.json("POST", "/sign-in/email-otp", { body: { email: "ada@example.com", otp: signInCode } }, 400);
      await otp({ email: "ada@example.com", purpose: "email-verification" });
      await Promise.all(background);
      const verifyCode = h.latest("ada@example.com", "email-verification");
      await h.json("POST", "/email-otp/check-verification-otp", { body: { email: "ada@example.com", purpose: "email-verification", otp: verifyCode } });
      await h.json("POST", "/email-otp/verify-email", { body: { email: "ada@example.com", otp: verifyCode } });
      await h.json("POST", "/email-otp/request-password-reset", { body: { email: "ada@example.com" } });
      await Promise.all(background);
      const p4 = keep("password", "fourth password of ada");
      await h.json("POST", "/email-otp/reset-password", { body: { email: "ada@example.com", otp: h.latest("ada@example.com", "password-reset"), password: p4 } });
      await storedPasswordHash(adaId);
      t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p4 } }));

      // Email change by OTP (wrong code, right code).
      await h.json("POST", "/email-otp/request-email-change", { token: t, body: { newEmail: "ada@new.example" } });
      await Promise.all(background);
      const changeCode = h.latest("ada@new.example", "email-change");
      await h.json("POST", "/email-otp/change-email", { token: t, body: { newEmail: "ada@new.example", otp: keep("guessed code", changeCode.replace(/^./, (d) => String((Number(d) + 1) % 10))) } }, 400);
      await h.json("POST", "/email-otp/change-email", { token: t, body: { newEmail: "ada@new.example", otp: changeCode } });

      // API keys: create, verify (right, wrong, by header), list, update, delete, sweep.
      const created = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", { token: t, body: { name: "ci", permissions: { files: ["read"] } } });
      const key = keep("API key", created.key);
      await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["read"] } } });
      await h.json("POST", "/api-key/verify", { body: {}, headers: { "x-api-key": key } });
      const forged = keep("forged API key", `${key.slice(0, -4)}AAAA`);
      const failed = await h.json<{ valid: boolean }>("POST", "/api-key/verify", { body: { key: forged } });
      expect(failed.valid).toBe(false);
      await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["write"] } } });
      await h.json("GET", "/api-key/list", { token: t });
      await h.json("POST", "/api-key/update", { token: t, body: { keyId: created.apiKey.id, name: "ci-2", enabled: false } });
      await h.json("POST", "/api-key/verify", { body: { key } });
      const second = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", { token: t, body: { name: "temp" } });
      keep("API key", second.key);
      await h.json("POST", "/api-key/delete", { token: t, body: { keyId: second.apiKey.id } });
      await h.json("POST", "/api-key/delete-all-expired", { token: t });

      // An OTP-only user: sign-up by code, set-password, delete-account by emailed token.
      await otp({ email: "bob@example.com", purpose: "sign-in" });
      await Promise.all(background);
      const bob = await h.json<{ user: { id: string }; credentials: { token: string } }>("POST", "/sign-in/email-otp", { body: { email: "bob@example.com", otp: h.latest("bob@example.com", "sign-in") } });
      const bobToken = session(bob);
      await h.json("POST", "/set-password", { token: bobToken, body: { newPassword: keep("password", "bob's first password") } });
      await storedPasswordHash(bob.user.id);
      await h.json("POST", "/delete-account/request", { token: bobToken });
      const deleteToken = h.latest("bob@example.com", "delete-account");
      await h.json("POST", "/delete-account/confirm", { body: { token: keep("forged delete token", `${deleteToken.slice(0, -2)}zz`) } }, 400);
      await h.json("POST", "/delete-account/confirm", { body: { token: deleteToken } });

      // Ada: sign-out one session, then delete with the (wrong, then right) password.
      const other = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@new.example", password: p4 } }));
      await h.json("POST", "/sign-out", { token: other });
      await h.json("POST", "/delete-account", { token: t, body: { password: keep("password", "wrong delete password") } }, 401);
      await h.json("POST", "/delete-account", { token: t, body: { password: p4 } });
      await h.json("GET", "/token", { token: t }, 401);
      await Promise.all(background);
    } finally {
      capture.stop();
    }

    // Audit rows, all pages.
    const rows: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await auth.api.listAuditEvents({ limit: 100, cursor });
      rows.push(...page.events);
      cursor = page.nextCursor;
    } while (cursor);

    // The harness really saw what it scans: every kind of secret, emails on the console, events, audit rows.
    const purposes = new Set(codes.map((c) => c.purpose));
    expect([...purposes].sort()).toEqual(["delete-account", "email-change", "email-verification", "email-verification-link", "password-reset", "password-reset-link", "sign-in"]);
    const labels = new Set(secrets.map((s) => s.label));
    for (const label of ["password", "session token", "API key", "JWT", "JWT (set-auth-jwt)", "stored password hash"]) expect(labels, label).toContain(label);
    expect(capture.stdout.join("\n")).toContain("[latchkey email] to=ada@example.com template=otp-sign-in");
    expect(capture.stdout.join("\n")).toContain("template=delete-account");
    expect(events.length).toBeGreaterThan(30);
    expect(rows.length).toBe(events.length);
    expect(errorBodies.length).toBeGreaterThan(10);

    const leaks = findLeaks({
      stdout: capture.stdout.join("\n"),
      stderr: capture.stderr.join("\n"),
      events: JSON.stringify(events),
      audit: JSON.stringify(rows),
      errorBodies: errorBodies.join("\n"),
    }, secrets);
    expect(leaks).toEqual([]);
  }, 60_000);
});
