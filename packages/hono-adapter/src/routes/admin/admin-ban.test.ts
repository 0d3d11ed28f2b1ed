import { describe, expect, it } from "vitest";
import { type Json, setup } from "./admin-fixture.ts";

describe("admin()", () => {
  it("a ban ends every session, disables every key, refuses every sign-in (403 USER_BANNED with the end) and issues no code or link", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const victim = await s.user("victim");
    const second = (await s.json(await s.signIn(victim.email))) as { credentials: { token: string } };
    const key = await s.call("POST", "/api-key/create", victim.token, { name: "ci" });
    expect(key.status).toBe(200);
    const { key: value, apiKey } = (await s.json(key)) as { key: string; apiKey: { id: string } };
    const keyId = apiKey.id;
    expect((await s.t.store.sessions.listByUser(victim.userId)).length).toBe(2);

    const banned = await s.call("POST", "/admin/ban-user", boss.token, {
      userId: victim.userId,
      banReason: "spam",
      banExpiresIn: 3600,
    });
    expect(banned.status).toBe(200);
    const { user } = (await s.json(banned)) as { user: Json };
    const until = new Date(s.t.clock.now() + 3_600_000).toISOString();
    expect(user).toMatchObject({ id: victim.userId, banned: true, banReason: "spam", banExpires: until });
    // In the store: the flag, no session, the key disabled.
    expect(await s.t.store.users.findById(victim.userId)).toMatchObject({ banned: true, banReason: "spam" });
    expect(await s.t.store.sessions.listByUser(victim.userId)).toEqual([]);
    expect((await s.t.store.apiKeys.findById(keyId))?.enabled).toBe(false);
    for (const token of [victim.token, second.credentials.token])
      expect(await s.json(await s.call("GET", "/get-session", token))).toBeNull();
    const verify = await s.t.request("POST", "/api-key/verify", { body: { key: value } });
    expect((await s.json(verify)).error).toMatchObject({ code: "KEY_DISABLED" });

    // Every way in: 403 USER_BANNED with the end date, and no session.
    const refused = await s.signIn(victim.email);
    expect(refused.status).toBe(403);
    expect(await s.json(refused)).toMatchObject({ code: "USER_BANNED", details: { until } });
    expect(await s.t.store.sessions.listByUser(victim.userId)).toEqual([]);
    // No code, no link: the sends answer as for anyone, and nothing is stored or mailed.
    const mailed = s.t.emails.sent.length;
    for (const [path, body] of [
      ["/email-otp/send-verification-otp", { email: victim.email, purpose: "sign-in" }],
      ["/sign-in/magic-link", { email: victim.email }],
      ["/request-password-reset", { email: victim.email }],
    ] as const)
      expect((await s.t.request("POST", path, { body })).status, path).toBe(200);
    await s.t.settle();
    expect(s.t.emails.sent.length).toBe(mailed);
    expect(s.events.filter((e) => e.type === "OtpGenerated")).toEqual([]);
    expect(s.events.find((e) => e.type === "UserBanned")).toMatchObject({
      userId: victim.userId,
      actorId: boss.userId,
      reason: "spam",
      keysDisabled: 1,
    });

    // The ban ends by itself at its end date; unbanning ends it at once.
    s.t.clock.advance(3_600_000);
    expect((await s.signIn(victim.email)).status).toBe(200);
    await s.call("POST", "/admin/ban-user", boss.token, { userId: victim.userId });
    expect(await s.json(await s.signIn(victim.email))).toMatchObject({ code: "USER_BANNED", details: { until: null } });
    const lifted = await s.call("POST", "/admin/unban-user", boss.token, { userId: victim.userId });
    expect((await s.json(lifted)).user).toMatchObject({ banned: false, banReason: null, banExpires: null });
    expect((await s.signIn(victim.email)).status).toBe(200);
    // The keys the ban disabled stay disabled.
    expect((await s.t.store.apiKeys.findById(keyId))?.enabled).toBe(false);
  });

  it("never bans, removes or impersonates an admin", async () => {
    const s = setup();
    const boss = await s.user("boss", "admin");
    const other = await s.user("other", "admin");
    const ban = await s.call("POST", "/admin/ban-user", boss.token, { userId: other.userId });
    expect(await s.json(ban)).toMatchObject({ code: "CANNOT_BAN_ADMIN" });
    expect(ban.status).toBe(403);
    expect((await s.call("POST", "/admin/remove-user", boss.token, { userId: other.userId })).status).toBe(403);
    const imp = await s.call("POST", "/admin/impersonate-user", boss.token, { userId: other.userId });
    expect(await s.json(imp)).toMatchObject({ code: "IMPERSONATION_NOT_ALLOWED" });
    expect(await s.t.store.users.findById(other.userId)).toMatchObject({ banned: false });
  });
});
