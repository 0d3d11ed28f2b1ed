// Two worker instances over one persisted D1, social sign-in against oidc-provider on loopback, and passkeys with a
// software authenticator. Setup: worker-fixture.ts.
import { describe, expect, it } from "vitest";
import { drizzleStore } from "@latchkey/drizzle-store/d1";
import { authorizeAt } from "@latchkey/test-support/oidc-provider";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { BASE_URL, edgeOf, idp, other, setUpWorkers, worker } from "./worker-fixture.ts";

setUpWorkers({ other: true });

describe("social sign-in in workerd over D1, against oidc-provider reachable on loopback", () => {
  const viaA = edgeOf(() => worker);
  const viaB = edgeOf(() => other);
  /** Starts a flow on one instance: the provider's URL and the state cookie that binds it to this "browser". */
  async function start(via: typeof viaA, ip: string) {
    const res = await via(
      new Request(`${BASE_URL}/auth/sign-in/social`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ provider: "oidc", callbackURL: "/home", errorCallbackURL: "/sign-in" }),
      }),
      ip,
    );
    expect(res.status).toBe(200);
    const state = res.headers
      .getSetCookie()
      .find((l) => l.includes("latchkey_oauth_state="))!
      .split(";")[0]!;
    return { url: ((await res.json()) as { url: string }).url, state };
  }
  const callback = (via: typeof viaA, at: URL, state: string, ip: string) =>
    via(new Request(`${BASE_URL}/auth/callback/oidc${at.search}`, { headers: { cookie: state } }), ip);

  it("the code flow: a flow started on one instance ends on the other, signed in; the account is in D1; the code is spent", async () => {
    const who = { sub: "workers-sub-1", email: "social@workers.example", email_verified: true, name: "Ada" };
    idp.login(who);
    const flow = await start(viaA, "203.0.113.60");
    expect(new URL(flow.url).origin).toBe(idp.issuer);
    const back = await authorizeAt(flow.url);
    expect(back.origin + back.pathname).toBe(`${BASE_URL}/auth/callback/oidc`);
    // The callback lands on the other instance: the flow's state lives in D1, not in an isolate.
    const done = await callback(viaB, back, flow.state, "203.0.113.60");
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(`${BASE_URL}/home`);
    // An https base URL: the session cookie carries the __Host- prefix.
    const session = done.headers
      .getSetCookie()
      .find((l) => l.startsWith("__Host-latchkey.session="))!
      .split(";")[0]!;
    const me = await viaA(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie: session } }));
    expect(((await me.json()) as { user: { email: string; emailVerified: boolean } }).user).toMatchObject({
      email: who.email,
      emailVerified: true,
    });
    const store = drizzleStore({ binding: await worker.d1("DB") });
    const linked = await store.socialAccounts.findByProviderAccount("oidc", who.sub);
    expect(linked?.user.email).toBe(who.email);
    // Provider tokens are sealed at rest in D1.
    expect(linked?.account.accessToken).toMatch(/^v1\./);
    // The same authorization response again (replayed on the first instance): the state is spent, no session.
    const replay = await callback(viaA, back, flow.state, "203.0.113.60");
    expect(replay.status).toBe(302);
    expect(replay.headers.get("location")).toBe(`${BASE_URL}/?error=OAUTH_STATE_MISMATCH`);
    expect(replay.headers.getSetCookie().some((l) => /^__Host-latchkey\.session=[^;]/.test(l))).toBe(false);
    expect(await store.sessions.listByUser(linked!.user.id)).toHaveLength(1);
  });

  it("one flow's callback delivered to both instances at once signs in exactly once", async () => {
    idp.login({ sub: "workers-sub-2", email: "race@workers.example", email_verified: true });
    const flow = await start(viaA, "203.0.113.61");
    const back = await authorizeAt(flow.url);
    const answers = await Promise.all([
      callback(viaA, back, flow.state, "203.0.113.61"),
      callback(viaB, back, flow.state, "203.0.113.61"),
    ]);
    const signedIn = answers.filter((r) => r.headers.get("location") === `${BASE_URL}/home`);
    expect(signedIn).toHaveLength(1);
    const store = drizzleStore({ binding: await worker.d1("DB") });
    const user = await store.users.findByEmail("race@workers.example");
    expect((await store.sessions.listByUser(user!.id)).length).toBe(1);
  });

  it("another browser's state cookie is refused (the flow is bound to the browser that started it)", async () => {
    idp.login({ sub: "workers-sub-3", email: "csrf@workers.example", email_verified: true });
    const mine = await start(viaA, "203.0.113.62");
    const theirs = await start(viaA, "203.0.113.62");
    const back = await authorizeAt(mine.url);
    const res = await callback(viaB, back, theirs.state, "203.0.113.62");
    // A state the cookie does not name belongs to no flow this browser started: its error callback is not trusted,
    // so the answer goes to the default one (the base URL).
    expect(res.headers.get("location")).toBe(`${BASE_URL}/?error=OAUTH_STATE_MISMATCH`);
    const store = drizzleStore({ binding: await worker.d1("DB") });
    expect(await store.users.findByEmail("csrf@workers.example")).toBeNull();
  });
});

describe("passkeys in workerd over D1 (two instances, software authenticator)", () => {
  const viaA = edgeOf(() => worker);
  const viaB = edgeOf(() => other);
  type Options = Parameters<SoftwareAuthenticator["create"]>[0] & Parameters<SoftwareAuthenticator["get"]>[0];
  // Bearer-mode requests (no Origin): the answers carry the challenge token and the session token.
  const post = (via: typeof viaA, path: string, body: unknown, token?: string) =>
    via(
      new Request(`${BASE_URL}/auth${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }),
      "203.0.113.70",
    );
  const ceremony = async (res: Response) => {
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string };
  };
  const d1Store = async () => drizzleStore({ binding: await worker.d1("DB") });

  it("signs up with a passkey on one instance, signs in with it on the other; the rows are in D1", async () => {
    const device = new SoftwareAuthenticator({ origin: BASE_URL });
    const started = await ceremony(await post(viaA, "/passkey/sign-up/options", { email: "passkey@workers.example" }));
    expect(started.options).toMatchObject({ rp: { id: "workers.example" } });
    const response = await device.create(started.options);
    const signedUp = await post(viaB, "/passkey/sign-up/verify", { response, challengeToken: started.challengeToken });
    expect(signedUp.status).toBe(200);
    const { user } = (await signedUp.json()) as { user: { id: string } };
    const store = await d1Store();
    expect(await store.accounts.listByUser(user.id)).toEqual([]);
    const stored = await store.passkeys.listByUser(user.id);
    expect(stored.map((p) => p.credentialId)).toEqual([response.id]);

    const signIn = await ceremony(await post(viaB, "/passkey/authenticate/options", {}));
    const assertion = await device.get(signIn.options);
    const res = await post(viaA, "/passkey/authenticate/verify", {
      response: assertion,
      challengeToken: signIn.challengeToken,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(user.id);
    expect((await store.passkeys.listByUser(user.id))[0]!.lastUsedAt).not.toBeNull();
    // The same assertion again, on the other instance: the challenge is spent in D1.
    const replay = await post(viaB, "/passkey/authenticate/verify", {
      response: assertion,
      challengeToken: signIn.challengeToken,
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe("PASSKEY_CHALLENGE_INVALID");
  });

  it("one assertion sent to both instances at once signs in once; a passkey deleted on one is refused on the other", async () => {
    const device = new SoftwareAuthenticator({ origin: BASE_URL });
    const started = await ceremony(await post(viaA, "/passkey/sign-up/options", { email: "race-pk@workers.example" }));
    const signedUp = await post(viaA, "/passkey/sign-up/verify", {
      response: await device.create(started.options),
      challengeToken: started.challengeToken,
    });
    const { user, credentials } = (await signedUp.json()) as { user: { id: string }; credentials: { token: string } };
    // A second passkey (a security key), registered on the other instance.
    const key = new SoftwareAuthenticator({ origin: BASE_URL });
    const reg = await ceremony(await post(viaB, "/passkey/register/options", {}, credentials.token));
    const added = await post(
      viaB,
      "/passkey/register/verify",
      { response: await key.create(reg.options), challengeToken: reg.challengeToken, name: "Key" },
      credentials.token,
    );
    expect(added.status).toBe(200);
    const store = await d1Store();
    const sessionsBefore = (await store.sessions.listByUser(user.id)).length;

    const signIn = await ceremony(await post(viaA, "/passkey/authenticate/options", {}));
    const body = { response: await key.get(signIn.options), challengeToken: signIn.challengeToken };
    // Two workerd processes over one local SQLite file can meet its write lock: a 503 DATABASE_UNAVAILABLE, which a
    // client retries (as the two-factor race above does). The loser's retry finds the challenge spent.
    const verify = async (via: typeof viaA) => {
      for (let attempt = 0; ; attempt++) {
        const res = await post(via, "/passkey/authenticate/verify", body);
        if (res.status !== 503 || attempt === 5) return res;
        expect(((await res.json()) as { code: string }).code).toBe("DATABASE_UNAVAILABLE");
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    };
    const answers = await Promise.all([verify(viaA), verify(viaB)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await store.sessions.listByUser(user.id)).length).toBe(sessionsBefore + 1);

    const keyRow = (await store.passkeys.listByUser(user.id)).find((p) => p.name === "Key")!;
    const del = await viaB(
      new Request(`${BASE_URL}/auth/passkey/${keyRow.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${credentials.token}` },
      }),
    );
    expect(del.status).toBe(200);
    const again = await ceremony(await post(viaB, "/passkey/authenticate/options", {}));
    const refused = await post(viaA, "/passkey/authenticate/verify", {
      response: await key.get(again.options),
      challengeToken: again.challengeToken,
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("UNKNOWN_PASSKEY");
    // The last passkey cannot go: the account has no password.
    const last = (await store.passkeys.listByUser(user.id))[0]!;
    const lastDel = await viaA(
      new Request(`${BASE_URL}/auth/passkey/${last.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${credentials.token}` },
      }),
    );
    expect(lastDel.status).toBe(409);
  });
});
