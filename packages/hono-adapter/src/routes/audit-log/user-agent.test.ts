import { describe, expect, it } from "vitest";
import { auditLog, hashSecret } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";

// Issue 33 item 7: a 16 KB User-Agent sent with every failed sign-in is stored as 512 characters, in audit rows
// as in sessions (one rule, `storedUserAgent`).

describe("stored User-Agent", () => {
  it("audit rows and sessions keep at most 512 characters of it", async () => {
    const t = createTestAuth({ plugins: [auditLog()] });
    const huge = `Mozilla/5.0 ${"x".repeat(16_000)}`;
    for (let i = 0; i < 3; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: `nobody-${i}@example.com`, password: "a wrong password" },
        headers: { "user-agent": huge },
        ip: `198.51.100.${i + 1}`,
      });
      expect(res.status).toBe(401);
    }
    const signUp = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
      headers: { "user-agent": huge },
      ip: "198.51.100.9",
    });
    const token = ((await signUp.json()) as { credentials: { token: string } }).credentials.token;
    const rows = (await t.auth.api.listAuditEvents({ limit: 100 })).events;
    expect(rows.filter((r) => r.type === "SignInFailed")).toHaveLength(3);
    for (const row of rows) expect(row.userAgent).toBe(huge.slice(0, 512));
    const stored = await t.store.sessions.findByTokenHash(hashSecret(token));
    expect(stored?.session.userAgent).toBe(huge.slice(0, 512));
  });
});
