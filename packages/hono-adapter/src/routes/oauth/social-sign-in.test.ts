import { describe, expect, it } from "vitest";
import { KeyEnvelope } from "@latchkey/core/internal";
import { twoFactor, webCryptoRandom, type AuthEvent } from "@latchkey/core";
import { startTestOidcProvider, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { TEST_SECRET } from "../../../test/test-auth.ts";
import {
  cookieOf,
  errorOf,
  oidcProviderForFile,
  personMaker,
  PROVIDER,
  REDIRECT_URI,
  signInWithProvider,
  socialAuth,
} from "../../../test/routes/oauth/social-test-kit.ts";
import { codeAt, type Setup } from "../two-factor/fixtures.ts";

let idp: TestOidcProvider;
oidcProviderForFile((started) => (idp = started));

const person = personMaker("person", { name: "Ada Lovelace" });

describe("social sign-in against a real OpenID provider (oidc-provider)", () => {
  it("a first sign-in creates a verified user with the linked account, a session and tokens sealed at rest", async () => {
    const t = socialAuth(idp);
    const who = person();
    const res = await signInWithProvider(t, idp, who, { callbackURL: "/dashboard", newUserCallbackURL: "/welcome" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://app.example/welcome");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const session = cookieOf(res, t.auth.core.config.cookies.name);
    // The flow's state cookie is cleared.
    expect(res.headers.getSetCookie().some((l) => /latchkey_oauth_state=;.*Max-Age=0/.test(l))).toBe(true);
    const me = await t.request("GET", "/get-session", { headers: { cookie: session } });
    const body = (await me.json()) as { user: { email: string; emailVerified: boolean; name: string } };
    expect(body.user).toMatchObject({ email: who.email, emailVerified: true, name: "Ada Lovelace" });
    const found = await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub);
    expect(found?.user.email).toBe(who.email);
    const account = found!.account;
    expect(account.scope).toContain("openid");
    for (const field of ["accessToken", "refreshToken", "idToken"] as const) {
      expect(account[field]).toMatch(/^v1\./);
      expect(KeyEnvelope.isSealed(account[field]!)).toBe(true);
    }
    // Sealed under a key of its own, bound to the row and the column.
    const box = new KeyEnvelope(TEST_SECRET, webCryptoRandom, { salt: "latchkey/oauth-token", info: "aes-256-gcm v1" });
    const idToken = await box.open(`${account.id}:idToken`, account.idToken!);
    expect(idToken.split(".")).toHaveLength(3);
    await expect(box.open(`${account.id}:accessToken`, account.idToken!)).rejects.toThrow();
  });

  it("a second sign-in finds the user by provider subject (not by email) and signs in to the same user", async () => {
    const t = socialAuth(idp);
    const who = person();
    expect((await signInWithProvider(t, idp, who)).status).toBe(302);
    const first = await t.store.users.findByEmail(who.email);
    // The provider now says another email for the same subject: still the same user, found by subject.
    const again = await signInWithProvider(t, idp, { ...who, email: `renamed-${who.email}` }, { callbackURL: "/home" });
    expect(again.headers.get("location")).toBe("https://app.example/home");
    const session = cookieOf(again, t.auth.core.config.cookies.name);
    const me = (await (await t.request("GET", "/get-session", { headers: { cookie: session } })).json()) as {
      user: { id: string };
    };
    expect(me.user.id).toBe(first!.id);
    expect(await t.store.users.findByEmail(`renamed-${who.email}`)).toBeNull();
  });

  it("a provider that puts the email only in UserInfo (oidc-provider's conformant default) still signs in, verified as UserInfo says", async () => {
    const conformant = await startTestOidcProvider([REDIRECT_URI], { conformIdTokenClaims: true });
    try {
      const t = socialAuth(conformant);
      const verified = person();
      expect(errorOf(await signInWithProvider(t, conformant, verified))).toBeNull();
      const user = await t.store.users.findByEmail(verified.email);
      expect(user).toMatchObject({ emailVerified: true, name: "Ada Lovelace" });
      expect((await t.store.socialAccounts.findByProviderAccount(PROVIDER, verified.sub))?.user.id).toBe(user!.id);
      const unverified = person({ email_verified: false });
      expect(errorOf(await signInWithProvider(t, conformant, unverified))).toBeNull();
      expect((await t.store.users.findByEmail(unverified.email))?.emailVerified).toBe(false);
    } finally {
      await conformant.close();
    }
  });

  it("an unverified provider email makes an unverified user", async () => {
    const t = socialAuth(idp);
    const who = person({ email_verified: false });
    expect(errorOf(await signInWithProvider(t, idp, who))).toBeNull();
    expect((await t.store.users.findByEmail(who.email))?.emailVerified).toBe(false);
  });

  it("a two-factor user's social sign-in stops at the second step: pending cookie, no session, until /two-factor/verify", async () => {
    const t = socialAuth(idp, {}, { plugins: [twoFactor()] });
    const events: AuthEvent[] = [];
    t.auth.events.onAny((e) => void events.push(e));
    const who = person();
    const first = await signInWithProvider(t, idp, who);
    const headers = { cookie: cookieOf(first, t.auth.core.config.cookies.name), origin: "https://app.example" };
    // No password: the fresh session enables it.
    const enable = await t.request("POST", "/two-factor/enable", { body: {}, headers });
    expect(enable.status, await enable.clone().text()).toBe(200);
    const { secret } = (await enable.json()) as Setup;
    const setup = await t.request("POST", "/two-factor/verify-setup", {
      body: { code: codeAt(secret, t.clock.now()) },
      headers,
    });
    expect(setup.status).toBe(200);
    const user = (await t.store.users.findByEmail(who.email))!;
    const sessionsBefore = (await t.store.sessions.listByUser(user.id)).length;
    events.length = 0;

    const res = await signInWithProvider(t, idp, who, { callbackURL: "/home" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://app.example/home?twoFactorRequired=true");
    const cookieNames = res.headers.getSetCookie().map((l) => l.split("=")[0]);
    expect(cookieNames).not.toContain(t.auth.core.config.cookies.name);
    const pending = cookieOf(res, "two-factor");
    expect((await t.store.sessions.listByUser(user.id)).length).toBe(sessionsBefore);
    expect(events.map((e) => e.type)).not.toContain("UserSignedIn");

    t.clock.advance(30_000);
    const verify = await t.request("POST", "/two-factor/verify", {
      body: { code: codeAt(secret, t.clock.now()), trustDevice: true },
      headers: { cookie: pending, origin: "https://app.example" },
    });
    expect(verify.status, await verify.clone().text()).toBe(200);
    expect((await t.store.sessions.listByUser(user.id)).length).toBe(sessionsBefore + 1);
    expect(events.find((e) => e.type === "UserSignedIn")).toMatchObject({
      userId: user.id,
      method: "social",
      providerId: PROVIDER,
    });

    // The device is trusted now: the next social sign-in from it gets its session at once.
    const trusted = cookieOf(verify, "trusted-device");
    const again = await signInWithProvider(t, idp, who, { callbackURL: "/home" }, [trusted]);
    expect(again.headers.get("location")).toBe("https://app.example/home");
    expect(cookieOf(again, t.auth.core.config.cookies.name)).toBeTruthy();
  });
});
