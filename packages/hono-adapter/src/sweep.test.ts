import { describe, expect, it } from "vitest";
import { apiKeys, auditLog, emailOtp, hashSecret, signedIn } from "@latchkey/core";
import { createTestAuth } from "../test/test-auth.ts";

// Issue 33 item 6: every row has a way out. Anonymous traffic leaves counters, codes, sessions and audit rows;
// 31 (simulated) days later `auth.api.sweep()` removes each kind, in batches, and leaves the live rows. Run on
// memory, libSQL and PostgreSQL (the store of the run).

const DAY = 86_400_000;
const PASSWORD = "correct horse battery";

function setup() {
  return createTestAuth({
    plugins: [emailOtp(), apiKeys(), auditLog({ retention: "30d" })],
    emailVerification: { deleteUnverifiedAfter: "7d" },
  });
}

describe("auth.api.sweep()", () => {
  it("removes expired counters, sessions, codes, keys, old audit rows and long-unverified users, and nothing live", async () => {
    const t = setup();
    const kept = await t.auth.api.createUser({ email: "kept@example.com", password: PASSWORD, emailVerified: true });
    // Anonymous traffic: failed sign-ins (counters, audit rows), sign-in codes to new addresses, sign-ups.
    for (let i = 0; i < 20; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: `unknown-${i}@example.com`, password: PASSWORD },
        ip: `198.51.100.${i + 1}`,
      });
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 10; i++)
      await t.request("POST", "/email-otp/send-verification-otp", {
        body: { email: `new-${i}@example.com`, purpose: "sign-in" },
        ip: `198.51.101.${i + 1}`,
      });
    const pending = [];
    for (let i = 0; i < 3; i++) pending.push(await t.signUp(`pending-${i}@example.com`));
    const oldSession = signedIn(await t.auth.api.signIn({ email: "kept@example.com", password: PASSWORD }));
    await t.auth.api.createApiKey({ userId: kept.id, expiresIn: "1d" });
    // A key rerolled with a day of grace: its old value must stop verifying and leave the table.
    const rerolled = await t.auth.api.createApiKey({ userId: kept.id });
    const renewed = await t.auth.api.rerollApiKey({ keyId: rerolled.apiKey.id, gracePeriod: "1d" });
    const startedAt = t.clock.now();
    const auditBefore = (await t.auth.api.listAuditEvents({ limit: 100 })).events.length;
    expect(auditBefore).toBeGreaterThan(20);

    t.clock.advance(31 * DAY);
    // Fresh activity that must survive the sweep.
    const fresh = await t.request("POST", "/sign-in/email", {
      body: { email: "kept@example.com", password: PASSWORD },
      ip: "203.0.113.77",
    });
    expect(fresh.status).toBe(200);
    const freshToken = ((await fresh.json()) as { credentials: { token: string } }).credentials.token;

    const report = await t.auth.api.sweep({ batchSize: 7 });
    expect(report).toEqual({
      counters: expect.any(Number),
      // 3 sign-ups and the trusted sign-in, 7 days each.
      sessions: 4,
      verifications: 10,
      apiKeys: 1,
      apiKeyRerolls: 1,
      auditEvents: auditBefore,
      unverifiedUsers: 3,
    });
    // Per request: the route's counter and the global one per IP, the lockout failures, the shared budget.
    expect(report.counters).toBeGreaterThanOrEqual(20 * 3 + 10 * 2);

    // Rows left: nothing that should have gone (each port asked directly, without a limit).
    const now = t.clock.now();
    expect(await t.store.counters.deleteExpired(now)).toBe(0);
    expect(await t.store.sessions.deleteExpired(new Date(now))).toBe(0);
    expect(await t.store.verifications.deleteExpired(new Date(now))).toBe(0);
    expect(await t.store.audit.deleteBefore(new Date(now - 30 * DAY))).toBe(0);
    // The rows themselves are gone (looked up at a time they were live), not merely ended.
    expect(await t.counters.peek("rl:/sign-in/email:198.51.100.1", startedAt)).toBeNull();
    expect(await t.counters.peek("fail:email:unknown-0@example.com", startedAt)).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(oldSession.credentials.token))).toBeNull();
    expect(await t.store.verifications.findByIdentifier("otp:sign-in:new-0@example.com")).toBeNull();
    for (const p of pending) expect(await t.store.users.findById(p.userId)).toBeNull();
    // What is live stays: the verified user, the new session, today's counters and audit rows.
    expect(await t.store.users.findById(kept.id)).not.toBeNull();
    expect(await t.store.apiKeys.findByHash(hashSecret(rerolled.key))).toBeNull();
    expect((await t.auth.api.verifyApiKey({ key: renewed.key })).valid).toBe(true);
    expect(await t.auth.api.getSession(freshToken)).not.toBeNull();
    expect(await t.counters.peek("rl:/sign-in/email:203.0.113.77", now)).toMatchObject({ count: 1 });
    const left = (await t.auth.api.listAuditEvents({ limit: 100 })).events;
    expect(left.length).toBeGreaterThan(0);
    for (const row of left) expect(row.at.getTime()).toBeGreaterThanOrEqual(now - 30 * DAY);
    // The removals were announced like any other: one AccountDeleted per unverified user, one ApiKeyRevoked.
    expect(left.filter((r) => r.type === "AccountDeleted")).toHaveLength(3);
    expect(left.filter((r) => r.type === "ApiKeyRevoked")).toHaveLength(1);

    // A second sweep finds nothing.
    expect(await t.auth.api.sweep()).toEqual({
      counters: 0,
      sessions: 0,
      verifications: 0,
      apiKeys: 0,
      apiKeyRerolls: 0,
      auditEvents: 0,
      unverifiedUsers: 0,
    });
  });

  it("keeps unverified users and audit rows when their options say so, and refuses a bad batch size", async () => {
    const t = createTestAuth({ plugins: [auditLog({ retention: false })] });
    const pending = await t.signUp("pending@example.com");
    t.clock.advance(400 * DAY);
    const report = await t.auth.api.sweep();
    expect(report).toMatchObject({ sessions: 1, auditEvents: 0, unverifiedUsers: 0 });
    expect(await t.store.users.findById(pending.userId)).not.toBeNull();
    expect((await t.auth.api.listAuditEvents()).events.length).toBeGreaterThan(0);
    for (const batchSize of [0, 1.5, 10_001, "10" as unknown as number])
      await expect(t.auth.api.sweep({ batchSize })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});
