import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../auth/auth-core.ts";
import { createTestClock } from "../ports/clock.ts";
import type { AuthEvent } from "../kernel/events.ts";
import { toAuditRecord } from "./audit-log.ts";
import { AUDIT_LOG_PLUGIN_ID, auditLog } from "./plugin.ts";

const SECRET = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const AT = new Date(Date.UTC(2026, 5, 1, 12));

function core(withPlugin = true) {
  const clock = createTestClock(AT.getTime());
  const store = memoryStore();
  return {
    store,
    clock,
    core: createAuthCore({
      secret: SECRET,
      database: store,
      baseUrl: "https://app.example",
      clock,
      plugins: withPlugin ? [auditLog()] : [],
    }),
  };
}

describe("toAuditRecord", () => {
  it("puts type, userId, identifier, ip, userAgent and at in columns and the rest in data", () => {
    const row = toAuditRecord(
      {
        type: "OtpVerifyFailed",
        identifier: "ada@example.com",
        purpose: "sign-in",
        attemptCount: 2,
        at: AT,
        ip: "203.0.113.9",
        userAgent: "ua",
      },
      "id1",
    );
    expect(row).toEqual({
      id: "id1",
      type: "OtpVerifyFailed",
      userId: null,
      identifier: "ada@example.com",
      ip: "203.0.113.9",
      userAgent: "ua",
      at: AT,
      data: { purpose: "sign-in", attemptCount: 2 },
    });
    const locked = toAuditRecord(
      { type: "AccountLocked", identifier: "email:ada@example.com", until: new Date(AT.getTime() + 60_000), at: AT },
      "id2",
    );
    expect(locked).toMatchObject({
      userId: null,
      ip: null,
      userAgent: null,
      data: { until: "2026-06-01T12:01:00.000Z" },
    });
  });

  it("drops fields named plain, token, key, password, otp or code at any depth, whatever their case (secret leak into the audit trail)", () => {
    const event = {
      type: "UserUpdated",
      userId: "u1",
      fields: ["name"],
      at: AT,
      plain: "123456",
      token: "tok",
      Key: "lk_secret",
      password: "hunter22",
      OTP: "654321",
      code: "999999",
      newPassword: "n3w",
      sessionToken: "st",
      clientSecret: "cs",
      keyId: "k1",
      nested: { token: "deep", list: [{ password: "deeper", safe: 1 }], kept: "yes" },
    } as unknown as AuthEvent;
    const row = toAuditRecord(event, "id3");
    expect(row.data).toEqual({ fields: ["name"], keyId: "k1", nested: { list: [{ safe: 1 }], kept: "yes" } });
    const json = JSON.stringify(row);
    for (const secret of ["123456", "tok", "lk_secret", "hunter22", "654321", "999999", "n3w", '"st"', '"cs"', "deep"])
      expect(json).not.toContain(secret);
  });
});

describe("auditLog()", () => {
  it("stores every event except OtpGenerated, at the time it happened", async () => {
    const { core: c, store } = core();
    const base = { at: AT, ip: "203.0.113.1", userAgent: "vitest" };
    await c.events.emit("OtpRequested", { ...base, identifier: "ada@example.com", purpose: "sign-in" });
    await c.events.emit("OtpGenerated", {
      ...base,
      identifier: "ada@example.com",
      purpose: "sign-in",
      plain: "482913",
    });
    await c.events.emit("OtpVerified", { ...base, identifier: "ada@example.com", purpose: "sign-in", userId: "u1" });
    const { items } = await store.audit.list({ userId: null, limit: 100, cursor: null });
    expect(items.map((r) => r.type).sort()).toEqual(["OtpRequested", "OtpVerified"]);
    expect(JSON.stringify(items)).not.toContain("482913");
    expect(items.find((r) => r.type === "OtpVerified")).toMatchObject({
      userId: "u1",
      identifier: "ada@example.com",
      ip: "203.0.113.1",
      userAgent: "vitest",
      at: AT,
    });
  });

  it("lists newest first with keyset pagination, filtered by user, and validates limit and cursor", async () => {
    const { core: c } = core();
    for (let i = 0; i < 5; i++) {
      await c.events.emit("UserUpdated", {
        userId: i % 2 ? "odd" : "even",
        fields: [`f${i}`],
        at: new Date(AT.getTime() + i * 1000),
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await c.api.listAuditEvents({ limit: 2, cursor });
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((e) => (e.data.fields as string[])[0]!));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["f4", "f3", "f2", "f1", "f0"]);
    const odd = await c.api.listAuditEvents({ userId: "odd" });
    expect(odd.events.map((e) => e.userId)).toEqual(["odd", "odd"]);
    expect(odd.nextCursor).toBeNull();
    for (const limit of [0, 101, 2.5])
      await expect(c.api.listAuditEvents({ limit })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(c.api.listAuditEvents({ cursor: "x".repeat(600) })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("without the plugin, nothing is stored and listAuditEvents is NOT_FOUND", async () => {
    const { core: c, store } = core(false);
    await c.events.emit("UserUpdated", { userId: "u1", fields: ["name"], at: AT });
    expect((await store.audit.list({ userId: null, limit: 10, cursor: null })).items).toEqual([]);
    expect(c.plugins.get(AUDIT_LOG_PLUGIN_ID)).toBeNull();
    await expect(c.api.listAuditEvents()).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
