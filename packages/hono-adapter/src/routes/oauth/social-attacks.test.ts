import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { SignJWT } from "jose";
import {
  authorizeAt,
  CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";
import {
  cookieOf,
  deliver,
  errorOf,
  ip,
  PROVIDER,
  REDIRECT_URI,
  signInWithProvider,
  socialAuth,
  startFlow,
} from "../../../test/routes/oauth/social-test-kit.ts";
import type { TestAuth } from "../../../test/test-auth.ts";

let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startTestOidcProvider([REDIRECT_URI]);
});
afterAll(async () => {
  await idp.close();
});
afterEach(() => idp.tamper(null));

let seq = 0;
const person = (over: { email_verified?: boolean; email?: string } = {}) => {
  const n = `${Date.now().toString(36)}a${seq++}`;
  return { sub: `sub-${n}`, email: `victim-${n}@example.com`, email_verified: true, ...over };
};

/** The provider's answer for a flow started by this browser: the callback URL and the browser's state cookie. */
async function providerAnswer(t: TestAuth, who = person()) {
  const { url, stateCookie } = await startFlow(t, { errorCallbackURL: "/sign-in" });
  idp.login(who);
  return { callback: await authorizeAt(url), stateCookie, who, state: new URL(url).searchParams.get("state")! };
}

async function userCount(t: TestAuth, email: string) {
  return (await t.store.users.findByEmail(email)) ? 1 : 0;
}

/** The failure redirect: to the error callback, no session cookie, no user. */
async function refused(t: TestAuth, res: Response, code: string, email: string) {
  expect(errorOf(res)).toBe(code);
  expect(res.headers.get("location")).toMatch(/^https:\/\/app\.example\//);
  expect(res.headers.getSetCookie().some((l) => l.startsWith(t.auth.core.config.cookies.name))).toBe(false);
  expect(await userCount(t, email)).toBe(0);
}

describe("state: random, single-use, bound to the browser that started the flow", () => {
  it("missing state", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    callback.searchParams.delete("state");
    await refused(t, await deliver(t, callback, stateCookie), "OAUTH_STATE_MISMATCH", who.email);
  });

  it("forged state (a cookie and a state of the attacker's making)", async () => {
    const t = socialAuth(idp);
    const { callback, who } = await providerAnswer(t);
    callback.searchParams.set("state", "forged-state");
    const res = await deliver(t, callback, "__Secure-latchkey_oauth_state=forged-state.AAAA");
    await refused(t, res, "OAUTH_STATE_MISMATCH", who.email);
  });

  it("other browser: the right state without this browser's cookie, or with another flow's cookie", async () => {
    const t = socialAuth(idp);
    const { callback, who } = await providerAnswer(t);
    await refused(t, await deliver(t, callback, null), "OAUTH_STATE_MISMATCH", who.email);
    const other = await startFlow(t);
    await refused(t, await deliver(t, callback, other.stateCookie), "OAUTH_STATE_MISMATCH", who.email);
  });

  it("replayed: the same callback twice signs in once; the state row is spent", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who, state } = await providerAnswer(t);
    const first = await deliver(t, callback, stateCookie);
    expect(errorOf(first)).toBeNull();
    expect(await t.store.verifications.findByValueHash(hashSecret(state))).toBeNull();
    const again = await deliver(t, callback, stateCookie);
    expect(errorOf(again)).toBe("OAUTH_STATE_MISMATCH");
    const user = (await t.store.users.findByEmail(who.email))!;
    expect(await t.store.sessions.listByUser(user.id)).toHaveLength(1);
  });

  it("two callbacks of one flow racing: exactly one session", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    const answers = await Promise.all([deliver(t, callback, stateCookie), deliver(t, callback, stateCookie)]);
    expect(answers.map(errorOf).sort()).toEqual(["OAUTH_STATE_MISMATCH", null].sort());
    const user = (await t.store.users.findByEmail(who.email))!;
    expect(await t.store.sessions.listByUser(user.id)).toHaveLength(1);
  });

  it("expired: a flow older than 10 minutes is refused", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    t.clock.advance(10 * 60_000 + 1);
    await refused(t, await deliver(t, callback, stateCookie), "OAUTH_STATE_MISMATCH", who.email);
  });
});

describe("the code and PKCE", () => {
  it("code injection: a code from another session (its PKCE verifier is not this flow's) is refused", async () => {
    const t = socialAuth(idp);
    const attacker = await providerAnswer(t, person());
    const victim = await providerAnswer(t, person());
    const injected = new URL(victim.callback);
    injected.searchParams.set("code", attacker.callback.searchParams.get("code")!);
    const res = await deliver(t, injected, victim.stateCookie);
    await refused(t, res, "OAUTH_INVALID_RESPONSE", attacker.who.email);
    expect(await userCount(t, victim.who.email)).toBe(0);
  });

  it("the authorization URL always carries an S256 challenge, a state and a nonce", async () => {
    const t = socialAuth(idp);
    const { url } = await startFlow(t);
    const params = new URL(url).searchParams;
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(params.get("state")).toMatch(/^[\w-]{43}$/);
    expect(params.get("nonce")?.length).toBeGreaterThanOrEqual(43);
    expect(params.get("redirect_uri")).toBe(REDIRECT_URI);
  });
});

describe("mix-up defence: RFC 9207 iss", () => {
  it("a response whose iss names another provider is refused", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    expect(callback.searchParams.get("iss")).toBe(idp.issuer);
    callback.searchParams.set("iss", "https://attacker.example");
    const before = idp.tokenRequests();
    await refused(t, await deliver(t, callback, stateCookie), "OAUTH_INVALID_RESPONSE", who.email);
    // Nothing was redeemed at the honest provider.
    expect(idp.tokenRequests()).toBe(before);
  });
});

describe("the ID token", () => {
  const cases: Array<[string, Parameters<TestOidcProvider["tamper"]>[0] & object]> = [
    ["nonce mismatch", (claims, sign) => sign.rs256({ ...claims, nonce: "another-nonce" })],
    ["wrong audience", (claims, sign) => sign.rs256({ ...claims, aud: "another-client" })],
    ["wrong issuer", (claims, sign) => sign.rs256({ ...claims, iss: "https://attacker.example" })],
    [
      "expired",
      (claims, sign) =>
        sign.rs256({ ...claims, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
    ],
    [
      "not yet valid (issued an hour ahead)",
      (claims, sign) =>
        sign.rs256({ ...claims, iat: Math.floor(Date.now() / 1000) + 3600, exp: Math.floor(Date.now() / 1000) + 7200 }),
    ],
    [
      "alg none",
      async (claims) =>
        `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(
          JSON.stringify(claims),
        ).toString("base64url")}.`,
    ],
    [
      "HS256 signed with the client secret",
      async (claims) =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(CLIENT_SECRET)),
    ],
    ["signed by a key the issuer never published", (claims, sign) => sign.rs256(claims, { kid: "unknown-key" })],
    [
      "a forged signature",
      async (claims, sign) => {
        const [h, , s] = (await sign.rs256(claims)).split(".");
        return `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: "someone-else" })).toString("base64url")}.${s}`;
      },
    ],
  ];

  it.each(cases)("%s: refused, nothing created", async (_, tamper) => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    idp.tamper(tamper);
    await refused(t, await deliver(t, callback, stateCookie), "OAUTH_INVALID_RESPONSE", who.email);
  });

  it("the same token re-signed untouched with the real key is accepted (the tamper harness itself is sound)", async () => {
    const t = socialAuth(idp);
    const { callback, stateCookie, who } = await providerAnswer(t);
    idp.tamper((claims, sign) => sign.rs256(claims));
    expect(errorOf(await deliver(t, callback, stateCookie))).toBeNull();
    expect(await userCount(t, who.email)).toBe(1);
  });
});

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
