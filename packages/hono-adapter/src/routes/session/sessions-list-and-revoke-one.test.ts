import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, recordEvents, signInAgain, live, devices } from "../../../test/routes/session/fixtures.ts";

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
