import { describe, expect, it } from "vitest";
import { auditLog, hashSecret, type AuditLogApi, type AuthEvent } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, cookieHeaders, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { storesForTestRun } from "../../../test/test-stores.ts";

const PASSWORD = "correct horse battery";

function recordEvents(t: TestAuth): AuthEvent[] {
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  return events;
}

/** Signs the same user in again from another "device"; returns the new token. */
async function signInAgain(t: TestAuth, email: string, userAgent: string, ip: string): Promise<string> {
  const res = await t.request("POST", "/sign-in/email", {
    body: { email, password: PASSWORD },
    headers: { "user-agent": userAgent },
    ip,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { credentials: { token: string } }).credentials.token;
}

async function live(t: TestAuth, token: string): Promise<boolean> {
  return (await t.store.sessions.findByTokenHash(hashSecret(token))) !== null;
}

/** Ada with three sessions (laptop first, then phone, then tablet, a minute apart) and Grace with one. */
async function devices(t: TestAuth) {
  const ada = await t.signUp("ada@example.com", PASSWORD);
  t.clock.advance(60_000);
  const phone = await signInAgain(t, "ada@example.com", "Phone/1.0", "203.0.113.5");
  t.clock.advance(60_000);
  const tablet = await signInAgain(t, "ada@example.com", "Tablet/2.0", "203.0.113.6");
  const grace = await t.signUp("grace@example.com", PASSWORD);
  return { ada, laptop: ada.token, phone, tablet, grace };
}

describe("GET /list-sessions", () => {
  it("lists the user's live sessions newest first, marks the current one, and carries no token or hash", async () => {
    const t = createTestAuth();
    const d = await devices(t);
    const res = await t.request("GET", "/list-sessions", { headers: bearer(d.phone) });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const token of [d.laptop, d.phone, d.tablet]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(hashSecret(token));
    }
    const { sessions } = JSON.parse(text) as { sessions: Array<Record<string, unknown>> };
    expect(sessions.map((s) => s.userAgent)).toEqual(["Tablet/2.0", "Phone/1.0", null]);
    expect(sessions.map((s) => s.current)).toEqual([false, true, false]);
    expect(sessions.map((s) => s.ip)).toEqual(["203.0.113.6", "203.0.113.5", expect.any(String)]);
    expect(Object.keys(sessions[0]!).sort()).toEqual(
      ["createdAt", "current", "expiresAt", "id", "ip", "updatedAt", "userAgent"].sort(),
    );
    // Only Ada's sessions; Grace sees only her own.
    const graces = (await (await t.request("GET", "/list-sessions", { headers: bearer(d.grace.token) })).json()) as {
      sessions: Array<{ id: string; current: boolean }>;
    };
    expect(graces.sessions).toHaveLength(1);
    expect(graces.sessions[0]!.current).toBe(true);
  });

  it("leaves out expired sessions and needs a session (401)", async () => {
    const t = createTestAuth({ session: { expiresIn: "1h", updateAge: "1h" } });
    const old = await t.signUp("ada@example.com", PASSWORD);
    t.clock.advance(50 * 60_000);
    const fresh = await signInAgain(t, "ada@example.com", "New/1", "203.0.113.9");
    t.clock.advance(11 * 60_000);
    const { sessions } = (await (await t.request("GET", "/list-sessions", { headers: bearer(fresh) })).json()) as {
      sessions: Array<{ current: boolean }>;
    };
    expect(sessions).toEqual([expect.objectContaining({ current: true, userAgent: "New/1" })]);
    expect(await live(t, old.token)).toBe(true); // still in the store, but not listed
    const anonymous = await t.request("GET", "/list-sessions");
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).code).toBe("INVALID_CREDENTIALS");
  });
});

describe("POST /revoke-session", () => {
  it("revokes one session: it is refused on its next request, the others stay, one event", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const { sessions } = (await (await t.request("GET", "/list-sessions", { headers: bearer(d.laptop) })).json()) as {
      sessions: Array<{ id: string; userAgent: string | null }>;
    };
    const phoneId = sessions.find((s) => s.userAgent === "Phone/1.0")!.id;
    const res = await t.request("POST", "/revoke-session", {
      headers: cookieHeaders(d.laptop),
      body: { sessionId: phoneId },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    // Not the current session: the cookie is left alone.
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await live(t, d.phone)).toBe(false);
    expect(await live(t, d.laptop)).toBe(true);
    expect(await live(t, d.tablet)).toBe(true);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(d.phone) })).json()).toBeNull();
    expect(events.filter((e) => e.type === "SessionRevoked")).toEqual([
      expect.objectContaining({ userId: d.ada.userId, sessionId: phoneId, reason: "revoke-session", count: 1 }),
    ]);
    // Again: gone, so 404 and no second event.
    const again = await t.request("POST", "/revoke-session", {
      headers: bearer(d.laptop),
      body: { sessionId: phoneId },
    });
    expect(again.status).toBe(404);
    expect(events.filter((e) => e.type === "SessionRevoked")).toHaveLength(1);
  });

  it("answers another user's session and an unknown id with the same 404 SESSION_NOT_FOUND and keeps them", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const d = await devices(t);
    const { sessions } = (await (
      await t.request("GET", "/list-sessions", { headers: bearer(d.grace.token) })
    ).json()) as { sessions: Array<{ id: string }> };
    const theirs = await t.request("POST", "/revoke-session", {
      headers: bearer(d.laptop),
      body: { sessionId: sessions[0]!.id },
    });
    const unknown = await t.request("POST", "/revoke-session", {
      headers: bearer(d.laptop),
      body: { sessionId: "no-such-session" },
    });
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await theirs.json()).toEqual(await unknown.json());
    expect(await live(t, d.grace.token)).toBe(true);
    expect(events.filter((e) => e.type === "SessionRevoked")).toEqual([]);
    const bad = await t.request("POST", "/revoke-session", { headers: bearer(d.laptop), body: {} });
    expect(bad.status).toBe(400);
  });

  it("revoking the current session clears the cookie", async () => {
    const t = createTestAuth();
    const d = await devices(t);
    const { sessions } = (await (await t.request("GET", "/list-sessions", { headers: bearer(d.tablet) })).json()) as {
      sessions: Array<{ id: string; current: boolean }>;
    };
    const current = sessions.find((s) => s.current)!.id;
    const res = await t.request("POST", "/revoke-session", {
      headers: cookieHeaders(d.tablet),
      body: { sessionId: current },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-latchkey\.session=; Max-Age=0/);
    expect(await live(t, d.tablet)).toBe(false);
  });

  it("a cookie-carrying revocation needs a trusted Origin", async () => {
    const t = createTestAuth();
    const d = await devices(t);
    const res = await t.request("POST", "/revoke-other-sessions", {
      headers: cookieHeaders(d.laptop, "https://evil.example"),
    });
    expect(res.status).toBe(403);
    expect(await live(t, d.phone)).toBe(true);
  });
});

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
