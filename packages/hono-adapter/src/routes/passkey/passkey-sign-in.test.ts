import { describe, expect, it } from "vitest";
import { bearer } from "../../../test/test-auth.ts";
import { RP_ID, ORIGIN, type Options, setup } from "../../../test/routes/passkey/fixtures.ts";

describe("passkeys over HTTP (software authenticator: real ES256 keys, CBOR attestation, signed assertions)", () => {
  it("registers a discoverable passkey and signs in with it, discoverable and by email", async () => {
    const s = await setup();
    const { options } = await s.registrationOptions();
    expect(options).toMatchObject({
      rp: { id: RP_ID, name: "Example" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: [],
    });
    const passkey = await s.register(s.authenticator, s.token, "MacBook");
    expect(passkey).toMatchObject({ name: "MacBook", deviceType: "singleDevice", backedUp: false });
    expect(s.events.filter((e) => e.type === "PasskeyAdded")).toMatchObject([
      { userId: s.userId, passkeyId: passkey.id },
    ]);
    // The user's passkeys are excluded from the next registration.
    expect((await s.registrationOptions()).options.excludeCredentials).toMatchObject([{ id: passkey.credentialId }]);

    const discoverable = await s.signInOptions();
    expect(discoverable.options.allowCredentials).toEqual([]);
    const res = await s.verify(await s.authenticator.get(discoverable.options), discoverable.challengeToken);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: { id: string }; credentials: { token: string } };
    expect(body.user.id).toBe(s.userId);
    const me = await s.t.request("GET", "/get-session", { headers: bearer(body.credentials.token) });
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(s.userId);
    expect(s.events.filter((e) => e.type === "UserSignedIn").at(-1)).toMatchObject({
      userId: s.userId,
      method: "passkey",
    });

    const byEmail = await s.signInOptions({ email: "Ada@Example.com" });
    expect(byEmail.options.allowCredentials).toMatchObject([{ id: passkey.credentialId }]);
    const again = await s.verify(await s.authenticator.get(byEmail.options), byEmail.challengeToken);
    expect(again.status).toBe(200);
    const list = (await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()) as {
      lastUsedAt: string | null;
    }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.lastUsedAt).not.toBeNull();
  });

  it("a browser gets the challenge as an HttpOnly cookie (no token in the answer) and a session cookie", async () => {
    const s = await setup();
    await s.register();
    const res = await s.post("/passkey/authenticate/options", {}, { origin: ORIGIN });
    const body = (await res.json()) as { options: Options; challengeToken?: string };
    expect(body.challengeToken).toBeUndefined();
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-latchkey.passkey="))!;
    expect(cookie).toContain("HttpOnly");
    const value = cookie.slice(0, cookie.indexOf(";"));
    const response = await s.authenticator.get(body.options);
    const signedIn = await s.post("/passkey/authenticate/verify", { response }, { origin: ORIGIN, cookie: value });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.getSetCookie()[0]).toMatch(/^__Host-latchkey\.session=/);
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith("__Host-latchkey.passkey=;"))).toBe(true);
  });

  it("a replayed assertion and a reused challenge are refused; two verifies of one challenge racing give one session", async () => {
    const s = await setup();
    await s.register();
    const { options, challengeToken } = await s.signInOptions();
    const response = await s.authenticator.get(options);
    const [a, b] = await Promise.all([s.verify(response, challengeToken), s.verify(response, challengeToken)]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(await s.code(a.status === 400 ? a : b)).toBe("PASSKEY_CHALLENGE_INVALID");
    // The same assertion with a new challenge token: the signed challenge is not that one.
    const fresh = await s.signInOptions();
    const replay = await s.verify(response, fresh.challengeToken);
    expect(replay.status).toBe(400);
    expect(await s.code(replay)).toBe("INVALID_PASSKEY_RESPONSE");
    expect(s.events.filter((e) => e.type === "UserSignedIn" && e.method === "passkey")).toHaveLength(1);
  });

  it("an expired challenge, and a challenge another client asked for, are refused", async () => {
    const s = await setup();
    await s.register();
    const old = await s.signInOptions();
    const oldResponse = await s.authenticator.get(old.options);
    s.t.clock.advance(5 * 60_000 + 1);
    const expired = await s.verify(oldResponse, old.challengeToken);
    expect(expired.status).toBe(400);
    expect(await s.code(expired)).toBe("PASSKEY_CHALLENGE_INVALID");

    // Client A's options answered by the authenticator, presented by client B with B's own challenge token.
    const mine = await s.signInOptions();
    const theirs = await s.signInOptions();
    const foreign = await s.verify(await s.authenticator.get(mine.options), theirs.challengeToken);
    expect(foreign.status).toBe(400);
    expect(await s.code(foreign)).toBe("INVALID_PASSKEY_RESPONSE");
    // Without any token (no cookie, no field): refused.
    const none = await s.post("/passkey/authenticate/verify", { response: await s.authenticator.get(mine.options) });
    expect(await s.code(none)).toBe("PASSKEY_CHALLENGE_INVALID");
    // A registration challenge does not sign in, and a sign-in challenge does not register.
    const reg = await s.registrationOptions();
    const cross = await s.verify(await s.authenticator.get(mine.options), reg.challengeToken);
    expect(await s.code(cross)).toBe("PASSKEY_CHALLENGE_INVALID");
  });
});
