import { afterEach, describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { SignJWT } from "jose";
import { authorizeAt, CLIENT_SECRET, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import {
  deliver,
  errorOf,
  oidcProviderForFile,
  personMaker,
  REDIRECT_URI,
  refused,
  socialAuth,
  startFlow,
  userCount,
} from "../../../test/routes/oauth/social-test-kit.ts";
import type { TestAuth } from "../../../test/test-auth.ts";

let idp: TestOidcProvider;
oidcProviderForFile((started) => (idp = started));
afterEach(() => idp.tamper(null));

const person = personMaker("victim");

/** The provider's answer for a flow started by this browser: the callback URL and the browser's state cookie. */
async function providerAnswer(t: TestAuth, who = person()) {
  const { url, stateCookie } = await startFlow(t, { errorCallbackURL: "/sign-in" });
  idp.login(who);
  return { callback: await authorizeAt(url), stateCookie, who, state: new URL(url).searchParams.get("state")! };
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
