import { describe, expect, it } from "vitest";
import { AUDIT_LOG_PLUGIN_ID, auditLog } from "@latchkey/core";
import type { TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import {
  cookieOf,
  oidcProviderForFile,
  personMaker,
  PROVIDER,
  signInWithProvider,
  socialAuth,
} from "../../../test/routes/oauth/social-test-kit.ts";

let idp: TestOidcProvider;
oidcProviderForFile((started) => (idp = started));

const person = personMaker("person", { name: "Ada Lovelace" });

describe("social sign-in against a real OpenID provider (oidc-provider)", () => {
  it("list-accounts, get-access-token (refreshed once expired) and unlink-account (never the last)", async () => {
    const t = socialAuth(idp);
    const who = person();
    const res = await signInWithProvider(t, idp, who);
    const cookie = cookieOf(res, t.auth.core.config.cookies.name);
    const headers = { cookie, origin: "https://app.example" };
    const list = await t.request("GET", "/list-accounts", { headers });
    const accounts = (await list.json()) as Array<Record<string, unknown>>;
    expect(accounts).toEqual([
      expect.objectContaining({ providerId: PROVIDER, accountId: who.sub, scopes: expect.arrayContaining(["openid"]) }),
    ]);
    expect(JSON.stringify(accounts)).not.toMatch(/v1\./);
    const token = await t.request("POST", "/get-access-token", { body: { provider: PROVIDER }, headers });
    expect(token.status).toBe(200);
    const first = (await token.json()) as { accessToken: string; accessTokenExpiresAt: string };
    expect(first.accessToken.length).toBeGreaterThan(10);
    // The provider's userinfo accepts it: a real token.
    const userinfo = await fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${first.accessToken}` } });
    expect(((await userinfo.json()) as { sub: string }).sub).toBe(who.sub);
    // An hour later it has expired: the stored refresh token gets a new one, stored again.
    const before = idp.tokenRequests();
    t.clock.advance(3_600_000);
    const later = await t.request("POST", "/get-access-token", { body: { provider: PROVIDER }, headers });
    const second = (await later.json()) as { accessToken: string; accessTokenExpiresAt: string };
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(idp.tokenRequests()).toBe(before + 1);
    expect(new Date(second.accessTokenExpiresAt).getTime()).toBeGreaterThan(t.clock.now());
    const again = await t.request("POST", "/get-access-token", { body: { provider: PROVIDER }, headers });
    expect(((await again.json()) as { accessToken: string }).accessToken).toBe(second.accessToken);
    expect(idp.tokenRequests()).toBe(before + 1);
    // The only way to sign in: unlinking it is refused.
    const refused = await t.request("POST", "/unlink-account", { body: { provider: PROVIDER }, headers });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe("LAST_ACCOUNT");
    expect(await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub)).not.toBeNull();
    const unknown = await t.request("POST", "/unlink-account", { body: { provider: "nope" }, headers });
    expect(unknown.status).toBe(404);
  });

  it("events and audit rows: UserSignedUp, AccountLinked, UserSignedIn (method social), AccountUnlinked; no token in them", async () => {
    const t = socialAuth(idp, {}, { plugins: [auditLog()] });
    const seen: Array<{ type: string }> = [];
    t.auth.events.onAny((event) => void seen.push(event));
    const who = person();
    const res = await signInWithProvider(t, idp, who);
    const user = (await t.store.users.findByEmail(who.email))!;
    const headers = { cookie: cookieOf(res, t.auth.core.config.cookies.name), origin: "https://app.example" };
    // A second way in (a password), so the provider may be unlinked.
    const set = await t.request("POST", "/set-password", { body: { newPassword: "another password 123" }, headers });
    expect(set.status).toBe(200);
    expect((await t.request("POST", "/unlink-account", { body: { provider: PROVIDER }, headers })).status).toBe(200);
    const types = seen.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["UserSignedUp", "AccountLinked", "UserSignedIn", "AccountUnlinked"]));
    expect(seen.find((e) => e.type === "UserSignedIn")).toMatchObject({
      userId: user.id,
      method: "social",
      providerId: PROVIDER,
    });
    expect(seen.find((e) => e.type === "AccountUnlinked")).toMatchObject({ userId: user.id, providerId: PROVIDER });
    const audit = t.auth.core.plugins.get(AUDIT_LOG_PLUGIN_ID)!;
    const { events } = await audit.api.listAuditEvents({ userId: user.id, limit: 50 });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["UserSignedUp", "AccountLinked", "UserSignedIn", "AccountUnlinked"]),
    );
    const account = await t.store.accounts.listByUser(user.id);
    expect(JSON.stringify(events)).not.toContain("v1.");
    expect(account.every((a) => a.providerId === "credential")).toBe(true);
  });
});
