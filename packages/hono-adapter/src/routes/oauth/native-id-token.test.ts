import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KeyEnvelope } from "@latchkey/core/internal";
import { webCryptoRandom } from "@latchkey/core";
import { SignJWT } from "jose";
import {
  authorizeAt,
  CLIENT_ID,
  CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";
import { TEST_SECRET, type TestAuth } from "../../../test/test-auth.ts";
import { exampleId, ip, PROVIDER, REDIRECT_URI, socialAuth } from "../../../test/routes/oauth/social-test-kit.ts";

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
  const n = `${Date.now().toString(36)}n${seq++}`;
  return { sub: `native-${n}`, email: `native-${n}@example.com`, email_verified: true, name: "Grace Hopper", ...over };
};

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/**
 * What a native app's provider SDK does: a code flow of its own with the app's nonce (PKCE, at the provider
 * directly, never through Latchkey), ending with the provider's ID token.
 */
async function nativeIdToken(
  identity: ReturnType<typeof person>,
  nonce: string,
): Promise<{ idToken: string; accessToken: string }> {
  const verifier = b64(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const url = new URL(`${idp.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: CLIENT_ID,
    response_type: "code",
    redirect_uri: REDIRECT_URI,
    scope: "openid email profile",
    state: "app-state",
    nonce,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }))
    url.searchParams.set(k, v);
  idp.login(identity);
  const back = await authorizeAt(url.toString());
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`the provider answered no code: ${back.search}`);
  const response = await fetch(`${idp.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    }),
  });
  const body = (await response.json()) as { id_token?: string; access_token?: string };
  if (!body.id_token || !body.access_token) throw new Error(`the provider answered no ID token: ${response.status}`);
  return { idToken: body.id_token, accessToken: body.access_token };
}

const signIn = (t: TestAuth, idToken: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.request("POST", "/sign-in/social", { body: { provider: PROVIDER, idToken }, ip: ip(), headers });

async function users(t: TestAuth, email: string): Promise<number> {
  return (await t.store.users.findByEmail(email)) ? 1 : 0;
}

describe("native sign-in with the provider's ID token (POST /sign-in/social { provider, idToken })", () => {
  it("a verified token with the app's nonce signs in: user, linked account, tokens sealed, a sign-in answer", async () => {
    const t = socialAuth(idp);
    const who = person();
    const { idToken, accessToken } = await nativeIdToken(who, "app-nonce-1");
    const res = await signIn(t, { token: idToken, nonce: "app-nonce-1", accessToken });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { user: { email: string; emailVerified: boolean }; credentials?: unknown };
    expect(body.user).toMatchObject({ email: who.email, emailVerified: true });
    // A native app's HTTP stack (no Origin, no Fetch Metadata) gets the session token to keep itself.
    expect(body.credentials).toMatchObject({ token: expect.any(String) });
    expect(res.headers.getSetCookie().some((l) => l.startsWith(`${t.auth.core.config.cookies.name}=`))).toBe(true);
    const found = await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub);
    expect(found?.user.email).toBe(who.email);
    const box = new KeyEnvelope(TEST_SECRET, webCryptoRandom, { salt: "latchkey/oauth-token", info: "aes-256-gcm v1" });
    expect(await box.open(`${found!.account.id}:idToken`, found!.account.idToken!)).toBe(idToken);
    expect(await box.open(`${found!.account.id}:accessToken`, found!.account.accessToken!)).toBe(accessToken);
    // The same person again: found by subject, no second user.
    const again = await nativeIdToken(who, "app-nonce-2");
    const second = await signIn(t, { token: again.idToken, nonce: "app-nonce-2" });
    expect(((await second.json()) as { user: { id: string } }).user.id).toBe(found!.user.id);
    // That sign-in brought no access token: the stored one, its expiry and scopes stay; the new ID token is kept.
    const after = (await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub))!.account;
    expect(await box.open(`${after.id}:accessToken`, after.accessToken!)).toBe(accessToken);
    expect(after.accessTokenExpiresAt).toEqual(found!.account.accessTokenExpiresAt);
    expect(after.scope).toBe(found!.account.scope);
    expect(await box.open(`${after.id}:idToken`, after.idToken!)).toBe(again.idToken);
  });

  it("a nonce other than the token's is refused, and so is a token issued without one", async () => {
    const t = socialAuth(idp);
    const who = person();
    const { idToken } = await nativeIdToken(who, "the-real-nonce");
    const wrong = await signIn(t, { token: idToken, nonce: "another-nonce" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { code: string }).code).toBe("OAUTH_INVALID_RESPONSE");
    const missing = await signIn(t, { token: idToken });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { code: string }).code).toBe("INVALID_REQUEST");
    expect(await users(t, who.email)).toBe(0);
  });

  it("the audience must be clientId or one of the provider's nativeClientIds", async () => {
    const who = person();
    idp.tamper((claims, sign) => sign.rs256({ ...claims, aud: "com.example.ios" }));
    const { idToken } = await nativeIdToken(who, "n-aud");
    const plain = socialAuth(idp);
    const refused = await signIn(plain, { token: idToken, nonce: "n-aud" });
    expect(((await refused.json()) as { code: string }).code).toBe("OAUTH_INVALID_RESPONSE");
    expect(await users(plain, who.email)).toBe(0);
    const withApp = socialAuth(idp, { providers: [exampleId(idp, { nativeClientIds: ["com.example.ios"] })] });
    const accepted = await signIn(withApp, { token: idToken, nonce: "n-aud" });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    expect(await users(withApp, who.email)).toBe(1);
  });

  it.each([
    ["alg none", "none"],
    ["HS256 signed with the client secret", "hs256"],
  ] as const)("%s: refused, nothing created", async (_, kind) => {
    const t = socialAuth(idp);
    const who = person();
    const { idToken } = await nativeIdToken(who, "n-alg");
    const claims = JSON.parse(Buffer.from(idToken.split(".")[1] as string, "base64url").toString()) as Record<
      string,
      unknown
    >;
    const forged =
      kind === "none"
        ? `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${idToken.split(".")[1]}.`
        : await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(CLIENT_SECRET));
    const res = await signIn(t, { token: forged, nonce: "n-alg" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("OAUTH_INVALID_RESPONSE");
    expect(await users(t, who.email)).toBe(0);
  });

  it("an email of an existing user links only as the callback would: 409 ACCOUNT_EXISTS for an untrusted provider", async () => {
    const t = socialAuth(idp);
    const who = person();
    await t.signUp(who.email, "correct horse battery");
    const { idToken } = await nativeIdToken(who, "n-link");
    const res = await signIn(t, { token: idToken, nonce: "n-link" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe("ACCOUNT_EXISTS");
    expect(await t.store.socialAccounts.findByProviderAccount(PROVIDER, who.sub)).toBeNull();
  });
});
