// auditLog() has no routes of its own: these tests drive it through the other features' endpoints.
import { describe, expect, it, vi } from "vitest";
import { apiKeys, auditLog, emailOtp, hashSecret, type AuditLogApi, type AuditRecord } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth, type TestAuthWith } from "../../../test/test-auth.ts";

async function allRows(t: TestAuthWith<AuditLogApi>, userId?: string): Promise<AuditRecord[]> {
  const rows: AuditRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await t.auth.api.listAuditEvents({ userId, limit: 7, cursor });
    rows.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/** The key with its last character changed: never the key itself (a fixed `x` would be, for keys ending in `x`). */
const forge = (key: string) => `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;

/** Sends a request and asserts its status, so a step that silently failed cannot leave its rows out unnoticed. */
async function step(res: Promise<Response>, status = 200): Promise<Response> {
  const answer = await res;
  expect(answer.status, await answer.clone().text()).toBe(status);
  return answer;
}

describe("auditLog() over HTTP", () => {
  it("after sign-up, sign-in, failures, reset, verification, set-password and deletion, no row holds a password, token or code (secrets in the audit trail)", async () => {
    const t = createTestAuth({ plugins: [auditLog(), emailOtp(), apiKeys()], rateLimit: { enabled: false } });
    const secrets: string[] = [];
    const keep = (s: string) => (secrets.push(s, hashSecret(s)), s);
    const ua = { "user-agent": "audit-test/1.0" };

    const adaPassword = keep("ada's first password");
    const ada = await t.signUp("ada@example.com", adaPassword);
    keep(ada.token);
    const signedIn = await step(
      t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: adaPassword },
        headers: ua,
        ip: "203.0.113.5",
      }),
    );
    keep((await signedIn.json()).credentials.token);
    keep("a wrong password guess");
    await step(
      t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: "a wrong password guess" },
        headers: ua,
        ip: "203.0.113.6",
      }),
      401,
    );
    await step(
      t.request("POST", "/verify-password", {
        headers: bearer(ada.token),
        body: { password: "a wrong password guess" },
      }),
      401,
    );

    await step(t.request("POST", "/send-verification-email", { body: { email: "ada@example.com" } }));
    const verifyToken = keep(t.auth.getOtp("ada@example.com")!);
    const verified = await t.request("POST", "/verify-email", {
      body: { email: "ada@example.com", token: verifyToken },
    });
    expect(verified.status).toBe(200);
    const session = keep((await verified.json()).credentials.token);
    await step(
      t.request("PATCH", "/user", {
        headers: bearer(session),
        body: { name: "Ada", metadata: { token: keep("metadata-token-value") } },
      }),
    );

    // After the verification: a reset link proves the mailbox too, and a verified address gets no verification link.
    await step(t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } }));
    const resetToken = keep(t.auth.getOtp("ada@example.com")!);
    const newPassword = keep("ada's second password");
    expect((await t.request("POST", "/reset-password", { body: { token: resetToken, newPassword } })).status).toBe(200);
    const afterReset = await step(
      t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: newPassword },
        headers: ua,
        ip: "203.0.113.7",
      }),
    );
    const adaSession = keep((await afterReset.json()).credentials.token);

    const grace = await t.signUp("grace@example.com", keep("grace's password!"));
    keep(grace.token);
    await t.store.accounts.deleteAllExcept(grace.userId, "EMAIL_OTP");
    expect(
      (
        await t.request("POST", "/set-password", {
          headers: bearer(grace.token),
          body: { newPassword: keep("grace's new password") },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.request("POST", "/delete-account", {
          headers: bearer(grace.token),
          body: { password: "grace's new password" },
        })
      ).status,
    ).toBe(200);

    // Email OTP: the code that signed in, and an API key created and verified with that session.
    await step(
      t.request("POST", "/email-otp/send-verification-otp", {
        body: { email: "otp@example.com", purpose: "sign-in" },
      }),
    );
    const code = keep(t.auth.getOtp("otp@example.com")!);
    const otpSignIn = await t.request("POST", "/sign-in/email-otp", { body: { email: "otp@example.com", otp: code } });
    expect(otpSignIn.status).toBe(200);
    const otpSession = keep((await otpSignIn.json()).credentials.token);
    const created = await step(
      t.request("POST", "/api-key/create", { headers: bearer(otpSession), body: { name: "ci" } }),
    );
    const apiKey = keep((await created.json()).key);
    expect((await (await step(t.request("POST", "/api-key/verify", { body: { key: apiKey } }))).json()).valid).toBe(
      true,
    );
    const forged = await step(t.request("POST", "/api-key/verify", { body: { key: forge(apiKey) } }));
    expect((await forged.json()).valid).toBe(false);
    // An unknown key writes no row (anyone can send one); a known key's refusal does.
    const refused = await step(
      t.request("POST", "/api-key/verify", { body: { key: apiKey, permissions: { files: ["write"] } } }),
    );
    expect((await refused.json()).valid).toBe(false);

    await step(t.request("POST", "/delete-account/request", { headers: bearer(adaSession), body: {} }));
    const deleteToken = keep(t.auth.getOtp("ada@example.com")!);
    expect((await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } })).status).toBe(200);
    await t.settle();

    const rows = await allRows(t);
    const types = new Set(rows.map((r) => r.type));
    for (const type of [
      "UserSignedUp",
      "UserSignedIn",
      "SignInFailed",
      "OtpRequested",
      "OtpVerified",
      "PasswordChanged",
      "SessionRevoked",
      "EmailVerified",
      "UserUpdated",
      "AccountDeleted",
      "ApiKeyCreated",
      "ApiKeyVerifyFailed",
    ]) {
      expect(types.has(type), type).toBe(true);
    }
    expect(types.has("OtpGenerated")).toBe(false);
    expect(rows.length).toBeGreaterThan(15);
    for (const row of rows) {
      const json = JSON.stringify(row);
      for (const secret of secrets) expect(json, `${row.type} leaks a secret`).not.toContain(secret);
    }
    // Request context is recorded.
    expect(rows.find((r) => r.type === "SignInFailed")).toMatchObject({
      identifier: "email:ada@example.com",
      ip: "203.0.113.6",
      userAgent: "audit-test/1.0",
    });
  });

  it("rows survive account deletion and stay listable by the deleted user's id", async () => {
    const t = createTestAuth({ plugins: [auditLog()] });
    const { token, userId } = await t.signUp("ada@example.com");
    // Rows are ordered by time; within one millisecond their order is unspecified, so time moves between steps.
    t.clock.advance(1000);
    await t.request("PATCH", "/user", { headers: bearer(token), body: { name: "Ada" } });
    t.clock.advance(1000);
    expect(
      (
        await t.request("POST", "/delete-account", {
          headers: bearer(token),
          body: { password: "correct horse battery" },
        })
      ).status,
    ).toBe(200);
    expect(await t.store.users.findById(userId)).toBeNull();
    const rows = await allRows(t, userId);
    expect(rows.map((r) => r.type)).toEqual(["AccountDeleted", "UserUpdated", "UserSignedUp"]);
    expect(rows[0]).toMatchObject({ userId, data: { email: "ada@example.com" } });
    expect(rows[1]!.data).toEqual({ fields: ["name"] });
  });
});

describe("auditLog() when the audit row cannot be written", () => {
  it("the request fails (500 INTERNAL_ERROR, logged) instead of answering as if the trail had it", async () => {
    const store = memoryStore();
    const t = createTestAuth({ plugins: [auditLog()], store });
    const { token } = await t.signUp("ada@example.com");
    const append = store.audit.append.bind(store.audit);
    store.audit.append = async () => {
      throw new Error("audit table is gone");
    };
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const res = await t.request("PATCH", "/user", { headers: bearer(token), body: { name: "Ada" } });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ code: "INTERNAL_ERROR" });
      expect(logged.mock.calls.flat().join("\n")).toContain("audit table is gone");
    } finally {
      logged.mockRestore();
      store.audit.append = append;
    }
    // With the store back, the same change is recorded.
    await step(t.request("PATCH", "/user", { headers: bearer(token), body: { name: "Ada" } }));
    expect((await allRows(t)).map((r) => r.type)).toContain("UserUpdated");
  });
});
