import { describe, expect, it } from "vitest";
import { authorizeAt, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import {
  cookieOf,
  deliver,
  errorOf,
  ip,
  oidcProviderForFile,
  personMaker,
  PROVIDER,
  REDIRECT_URI,
  refused,
  signInWithProvider,
  socialAuth,
  startFlow,
} from "../../../test/routes/oauth/social-test-kit.ts";

let idp: TestOidcProvider;
oidcProviderForFile((started) => (idp = started));

const person = personMaker("victim");

describe("callback URLs only to the app's origin or trusted origins", () => {
  const spellings = [
    "https://evil.example/phish",
    "//evil.example",
    "/\\evil.example",
    "https://app.example.evil.example/",
    "https://app.example@evil.example/",
    "javascript:alert(1)",
    "http://app.example/",
  ];
  for (const field of ["callbackURL", "errorCallbackURL", "newUserCallbackURL"])
    it.each(spellings)(`${field}: %s is 400 INVALID_CALLBACK_URL and starts nothing`, async (url) => {
      const t = socialAuth(idp);
      const res = await t.request("POST", "/sign-in/social", { body: { provider: PROVIDER, [field]: url }, ip: ip() });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("INVALID_CALLBACK_URL");
      expect(res.headers.get("set-cookie")).toBeNull();
    });

  it("a trusted origin and a path are accepted", async () => {
    const t = socialAuth(idp, {}, { trustedOrigins: ["https://admin.example"] });
    const res = await signInWithProvider(t, idp, person(), { callbackURL: "https://admin.example/home" });
    expect(res.headers.get("location")).toBe("https://admin.example/home");
  });

  it("the provider's error text is never reflected: only the code travels", async () => {
    const t = socialAuth(idp);
    const { url, stateCookie } = await startFlow(t, { errorCallbackURL: "/sign-in" });
    const state = new URL(url).searchParams.get("state")!;
    const denied = new URL(`${REDIRECT_URI}`);
    denied.searchParams.set("error", "access_denied");
    denied.searchParams.set("error_description", "<script>alert(1)</script>");
    denied.searchParams.set("state", state);
    denied.searchParams.set("iss", idp.issuer);
    const res = await deliver(t, denied, stateCookie);
    expect(res.headers.get("location")).toBe("https://app.example/sign-in?error=OAUTH_ACCESS_DENIED");
    expect(await res.text()).toBe("");
  });
});

describe("account linking that cannot be hijacked", () => {
  it("an unverified provider email matching an existing user: 409 ACCOUNT_EXISTS, nothing linked", async () => {
    const t = socialAuth(idp, { accountLinking: { trustedProviders: [PROVIDER] } });
    const who = person({ email_verified: false });
    const owner = await t.signUp(who.email);
    const res = await signInWithProvider(t, idp, who);
    expect(errorOf(res)).toBe("ACCOUNT_EXISTS");
    expect(await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub)).toBeNull();
    expect((await t.store.accounts.listByUser(owner.userId)).map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("a verified email of a provider that is not trusted: 409 ACCOUNT_EXISTS", async () => {
    const t = socialAuth(idp);
    const who = person();
    await t.signUp(who.email);
    expect(errorOf(await signInWithProvider(t, idp, who))).toBe("ACCOUNT_EXISTS");
    expect(await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub)).toBeNull();
  });

  it("a verified email of a trusted provider matching a password an attacker pre-registered: the attacker's password, sessions and keys go", async () => {
    const t = socialAuth(idp, { accountLinking: { trustedProviders: [PROVIDER] } });
    const who = person();
    // The attacker signed up first with the victim's address (never verified) and kept a session.
    const attacker = await t.signUp(who.email, "attacker password 123");
    const res = await signInWithProvider(t, idp, who);
    expect(errorOf(res)).toBeNull();
    const user = (await t.store.users.findByEmail(who.email))!;
    expect(user.id).toBe(attacker.userId);
    expect(user.emailVerified).toBe(true);
    expect((await t.store.accounts.listByUser(user.id)).map((a) => a.providerId)).toEqual([PROVIDER]);
    const old = await t.request("GET", "/get-session", { headers: { authorization: `Bearer ${attacker.token}` } });
    expect(await old.json()).toBeNull();
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: who.email, password: "attacker password 123" },
      ip: ip(),
    });
    expect(signIn.status).toBe(401);
    expect(await t.store.sessions.listByUser(user.id)).toHaveLength(1);
  });

  it("a verified email of a trusted provider matching a verified user links and keeps the user's password", async () => {
    const t = socialAuth(idp, { accountLinking: { trustedProviders: [PROVIDER] } });
    const who = person();
    const owner = await t.signUp(who.email);
    await t.store.users.update(owner.userId, { emailVerified: true });
    expect(errorOf(await signInWithProvider(t, idp, who))).toBeNull();
    expect((await t.store.accounts.listByUser(owner.userId)).map((a) => a.providerId).sort()).toEqual([
      "credential",
      PROVIDER,
    ]);
    const old = await t.request("GET", "/get-session", { headers: { authorization: `Bearer ${owner.token}` } });
    expect(await old.json()).not.toBeNull();
  });

  it("link-social links another identity to the signed-in user; one linked elsewhere is 409 ACCOUNT_ALREADY_LINKED", async () => {
    const t = socialAuth(idp);
    const owner = await t.signUp(person().email);
    const headers = { authorization: `Bearer ${owner.token}` };
    const mine = person({ email: "different@example.com" });
    const { url, stateCookie } = await startFlow(t, { callbackURL: "/settings" }, headers, "/link-social");
    idp.login(mine);
    const res = await deliver(t, await authorizeAt(url), stateCookie);
    expect(res.headers.get("location")).toBe("https://app.example/settings");
    expect((await t.store.socialAccounts.findByProviderAccount(PROVIDER, mine.sub))?.user.id).toBe(owner.userId);
    // Linked: the user now has two ways in, so one may go.
    const unlinked = await t.request("POST", "/unlink-account", { body: { provider: PROVIDER }, headers });
    expect(unlinked.status).toBe(200);
    expect(await t.store.socialAccounts.findByProviderAccount(PROVIDER, mine.sub)).toBeNull();
    // An identity that belongs to someone else cannot be linked.
    const taken = person();
    expect(errorOf(await signInWithProvider(t, idp, taken))).toBeNull();
    const again = await startFlow(t, {}, headers, "/link-social");
    idp.login(taken);
    expect(errorOf(await deliver(t, await authorizeAt(again.url), again.stateCookie))).toBe("ACCOUNT_ALREADY_LINKED");
    expect((await t.store.socialAccounts.findByProviderAccount(PROVIDER, taken.sub))?.user.id).not.toBe(owner.userId);
  });

  it("with allowSignUp false a stranger gets OAUTH_SIGN_UP_DISABLED and no user", async () => {
    const t = socialAuth(idp, { allowSignUp: false });
    const who = person();
    await refused(t, await signInWithProvider(t, idp, who), "OAUTH_SIGN_UP_DISABLED", who.email);
  });

  it("requireVerifiedForSignIn: an unverified provider email is EMAIL_NOT_VERIFIED, no user", async () => {
    const t = socialAuth(idp, {}, { emailVerification: { requireVerifiedForSignIn: true } });
    const who = person({ email_verified: false });
    await refused(t, await signInWithProvider(t, idp, who), "EMAIL_NOT_VERIFIED", who.email);
  });

  it("the state cookie is HttpOnly, Secure, SameSite=Lax, sent only to the callback path, for 10 minutes", async () => {
    const t = socialAuth(idp);
    const res = await t.request("POST", "/sign-in/social", { body: { provider: PROVIDER }, ip: ip() });
    const line = res.headers.getSetCookie().find((l) => l.startsWith("__Secure-latchkey_oauth_state="))!;
    expect(line).toMatch(/; Max-Age=600; Path=\/auth\/callback\/; HttpOnly; SameSite=Lax; Secure$/);
    // The value is the state and its MAC under a key derived from the secret.
    const state = new URL(((await res.json()) as { url: string }).url).searchParams.get("state")!;
    expect(cookieOf(res, "latchkey_oauth_state")).toMatch(
      new RegExp(`^__Secure-latchkey_oauth_state=${state}\\.[\\w-]{43}$`),
    );
  });

  it("an unknown provider is 404 PROVIDER_NOT_FOUND", async () => {
    const t = socialAuth(idp);
    const res = await t.request("POST", "/sign-in/social", { body: { provider: "nope" }, ip: ip() });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("PROVIDER_NOT_FOUND");
  });
});
