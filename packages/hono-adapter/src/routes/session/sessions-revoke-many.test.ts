import { describe, expect, it } from "vitest";
import { auditLog, hashSecret, type AuditLogApi } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { storesForTestRun } from "../../../test/test-stores.ts";
import { PASSWORD, recordEvents, live, devices } from "../../../test/routes/session/fixtures.ts";

describe("POST /revoke-other-sessions and /revoke-sessions", () => {
  it("revoke-other-sessions ends every other session of the user and keeps the current one", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const res = await t.request("POST", "/revoke-other-sessions", { headers: cookieHeaders(d.phone) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 2 });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await live(t, d.phone)).toBe(true);
    expect(await live(t, d.laptop)).toBe(false);
    expect(await live(t, d.tablet)).toBe(false);
    expect(await live(t, d.grace.token)).toBe(true);
    const revoked = events.filter((e) => e.type === "SessionRevoked");
    expect(revoked).toHaveLength(2);
    expect(revoked.every((e) => e.reason === "revoke-other-sessions" && e.count === 1 && e.sessionId)).toBe(true);
    expect(await (await t.request("POST", "/revoke-other-sessions", { headers: bearer(d.phone) })).json()).toEqual({
      revoked: 0,
    });
  });

  it("revoke-sessions ends all of them, the current one included, and clears the cookie", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const res = await t.request("POST", "/revoke-sessions", { headers: cookieHeaders(d.phone) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 3 });
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-latchkey\.session=; Max-Age=0/);
    for (const token of [d.laptop, d.phone, d.tablet]) expect(await live(t, token)).toBe(false);
    expect(await live(t, d.grace.token)).toBe(true);
    expect(events.filter((e) => e.type === "SessionRevoked" && e.reason === "revoke-sessions")).toHaveLength(3);
    expect((await t.request("GET", "/list-sessions", { headers: bearer(d.phone) })).status).toBe(401);
  });

  it("two concurrent revocations of the same sessions revoke (and report) each once", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const [a, b] = await Promise.all([
      t.request("POST", "/revoke-other-sessions", { headers: bearer(d.laptop) }),
      t.request("POST", "/revoke-other-sessions", { headers: bearer(d.laptop) }),
    ]);
    const total = ((await a.json()).revoked as number) + ((await b.json()).revoked as number);
    expect(total).toBe(2);
    expect(events.filter((e) => e.type === "SessionRevoked")).toHaveLength(2);
  });
});

describe("two instances on one store", () => {
  it("a session revoked on one instance is refused by the other on its very next request", async () => {
    // Two connections to one database on libSQL and PostgreSQL; the memory store can only be shared.
    const shared = memoryStore();
    const [first, second] = storesForTestRun(2) ?? [shared, shared];
    const a = createTestAuth({ store: first! });
    const b = createTestAuth({ store: second! });
    const d = await devices(a);
    // Instance B knows the phone session.
    expect((await b.request("GET", "/list-sessions", { headers: bearer(d.phone) })).status).toBe(200);
    const res = await a.request("POST", "/revoke-other-sessions", { headers: bearer(d.laptop) });
    expect(await res.json()).toEqual({ revoked: 2 });
    const refused = await b.request("GET", "/list-sessions", { headers: bearer(d.phone) });
    expect(refused.status).toBe(401);
    expect(await (await b.request("GET", "/get-session", { headers: bearer(d.tablet) })).json()).toBeNull();
    expect((await b.request("GET", "/list-sessions", { headers: bearer(d.laptop) })).status).toBe(200);
  });
});

describe("auth.api", () => {
  it("lists and revokes for trusted code, and for an admin by userId", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const mine = await t.auth.api.listSessions({ token: d.laptop });
    expect(mine.sessions.map((s) => s.current)).toEqual([false, false, true]);
    const admin = await t.auth.api.listSessions({ userId: d.ada.userId });
    expect(admin.sessions.map((s) => s.current)).toEqual([false, false, false]);
    expect(JSON.stringify(admin)).not.toContain(hashSecret(d.laptop));
    await expect(t.auth.api.revokeSession({ token: d.laptop, sessionId: "nope" })).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
    });
    expect(await t.auth.api.revokeSession({ token: d.laptop, sessionId: admin.sessions[0]!.id })).toEqual({
      success: true,
    });
    expect(await live(t, d.tablet)).toBe(false);
    expect(await t.auth.api.revokeOtherSessions({ token: d.laptop })).toEqual({ revoked: 1 });
    expect(await live(t, d.phone)).toBe(false);
    expect(await t.auth.api.revokeSessions({ userId: d.ada.userId })).toEqual({ revoked: 1 });
    expect(await live(t, d.laptop)).toBe(false);
    expect(await t.auth.api.revokeSessions({ token: d.grace.token })).toEqual({ revoked: 1 });
    await expect(t.auth.api.listSessions({ token: d.grace.token })).rejects.toMatchObject({
      code: "INVALID_CREDENTIALS",
    });
    expect(events.filter((e) => e.type === "SessionRevoked").map((e) => e.reason)).toEqual([
      "revoke-session",
      "revoke-other-sessions",
      "admin-revoke-sessions",
      "revoke-sessions",
    ]);
  });
});

describe("parallel sign-outs of one session (issue 48 item 21)", () => {
  it("five at once: every one answers 200, one SessionRevoked event and one audit row, from the delete that removed it", async () => {
    const t = createTestAuth({ plugins: [auditLog()] });
    const events = recordEvents(t);
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => t.request("POST", "/sign-out", { headers: bearer(token) })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await live(t, token)).toBe(false);
    expect(events.filter((e) => e.type === "SessionRevoked")).toEqual([
      expect.objectContaining({ userId, reason: "sign-out", count: 1 }),
    ]);
    const api = t.auth.api as unknown as AuditLogApi;
    const rows = (await api.listAuditEvents({ userId, limit: 100, cursor: null })).events;
    expect(rows.filter((r) => r.type === "SessionRevoked")).toHaveLength(1);
  });
});
