import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { github, oauth } from "@latchkey/core";
import { startGitHubTestServer, type GitHubTestServer } from "../../../test/github-test-server.ts";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { cookieOf, deliver, errorOf, ip } from "../../../test/routes/oauth/social-test-kit.ts";

let gh: GitHubTestServer;
beforeAll(async () => {
  gh = await startGitHubTestServer();
});
afterAll(async () => {
  await gh.close();
});

function githubAuth(trusted = false): TestAuth {
  const provider = github({
    clientId: gh.clientId,
    clientSecret: gh.clientSecret,
    endpoints: {
      authorizationUrl: `${gh.url}/login/oauth/authorize`,
      tokenUrl: `${gh.url}/login/oauth/access_token`,
      apiUrl: gh.url,
    },
  });
  return createTestAuth({
    plugins: [oauth({ providers: [provider], accountLinking: { trustedProviders: trusted ? ["github"] : [] } })],
  });
}

let seq = 1000;
const octocat = (verified = true) => {
  const id = seq++;
  return {
    id,
    login: `octo${id}`,
    name: null,
    emails: [
      { email: `secondary-${id}@example.com`, primary: false, verified: true },
      { email: `Octo-${id}@Example.com`, primary: true, verified },
    ],
  };
};

/** Starts a GitHub sign-in, consents at the test server, and answers the callback URL and the state cookie. */
async function githubFlow(t: TestAuth, user: ReturnType<typeof octocat>) {
  const start = await t.request("POST", "/sign-in/social", { body: { provider: "github" }, ip: ip() });
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  gh.login(user);
  const consent = await fetch(url, { redirect: "manual" });
  return { callback: new URL(consent.headers.get("location")!), stateCookie: cookieOf(start, "latchkey_oauth_state") };
}

describe("GitHub (plain OAuth 2.0, the oauth2 path) against a GitHub-shaped server", () => {
  it("signs up with the primary verified email from /user/emails and the numeric id as subject", async () => {
    const t = githubAuth();
    const user = octocat();
    const { callback, stateCookie } = await githubFlow(t, user);
    expect(callback.searchParams.get("iss")).toBeNull();
    const res = await deliver(t, callback, stateCookie, "github");
    expect(errorOf(res)).toBeNull();
    cookieOf(res, t.auth.core.config.cookies.name);
    const created = (await t.store.users.findByEmail(`octo-${user.id}@example.com`))!;
    expect(created).toMatchObject({
      emailVerified: true,
      name: user.login,
      image: `https://avatars.example/${user.id}`,
    });
    const found = await t.store.socialAccounts.findByProviderAccount("github", String(user.id));
    expect(found?.user.id).toBe(created.id);
    expect(found?.account.refreshToken).toBeNull();
    expect(found?.account.accessToken).toMatch(/^v1\./);
  });

  it("an unverified primary email makes an unverified user, and never links to an existing one", async () => {
    const t = githubAuth(true);
    const stranger = octocat(false);
    const first = await githubFlow(t, stranger);
    expect(errorOf(await deliver(t, first.callback, first.stateCookie, "github"))).toBeNull();
    expect((await t.store.users.findByEmail(`octo-${stranger.id}@example.com`))?.emailVerified).toBe(false);
    const victim = octocat(false);
    await t.signUp(`octo-${victim.id}@example.com`);
    const { callback, stateCookie } = await githubFlow(t, victim);
    expect(errorOf(await deliver(t, callback, stateCookie, "github"))).toBe("ACCOUNT_EXISTS");
  });

  it("the server checks the PKCE verifier: a code from another flow is refused (OAUTH_INVALID_RESPONSE)", async () => {
    const t = githubAuth();
    const attacker = await githubFlow(t, octocat());
    const victim = await githubFlow(t, octocat());
    const injected = new URL(victim.callback);
    injected.searchParams.set("code", attacker.callback.searchParams.get("code")!);
    const before = gh.refusals();
    expect(errorOf(await deliver(t, injected, victim.stateCookie, "github"))).toBe("OAUTH_INVALID_RESPONSE");
    expect(gh.refusals()).toBe(before + 1);
  });

  it("get-access-token answers the stored token (GitHub's tokens do not expire), which the API accepts", async () => {
    const t = githubAuth();
    const { callback, stateCookie } = await githubFlow(t, octocat());
    const res = await deliver(t, callback, stateCookie, "github");
    const cookie = cookieOf(res, t.auth.core.config.cookies.name);
    const headers = { cookie, origin: "https://app.example" };
    const token = await t.request("POST", "/get-access-token", { body: { provider: "github" }, headers });
    const { accessToken, accessTokenExpiresAt } = (await token.json()) as {
      accessToken: string;
      accessTokenExpiresAt: string | null;
    };
    expect(accessTokenExpiresAt).toBeNull();
    const me = await fetch(`${gh.url}/user`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(me.status).toBe(200);
  });
});
