import { describe, expect, it } from "vitest";
import { passkeys } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { RP_ID, ORIGIN, type Options, setup } from "../../../test/routes/passkey/fixtures.ts";

describe("passkeys over HTTP (software authenticator: real ES256 keys, CBOR attestation, signed assertions)", () => {
  it("a passkey sign-in obeys the account lockout and the beforeSignIn hook", async () => {
    const s = await setup();
    await s.register();
    for (let i = 0; i < 5; i++)
      await s.post("/sign-in/email", { email: "ada@example.com", password: "wrong password!!" });
    const { options, challengeToken } = await s.signInOptions();
    const locked = await s.verify(await s.authenticator.get(options), challengeToken);
    expect(locked.status).toBe(429);
    expect(await s.code(locked)).toBe("ACCOUNT_LOCKED");

    const plugins = [passkeys({ rpId: RP_ID, rpName: "Example" })] as const;
    const t = createTestAuth({ plugins, hooks: { beforeSignIn: (user) => user.appMetadata.banned !== true } });
    const ada = await t.signUp("ada@example.com");
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const regOptions = (await (
      await t.request("POST", "/passkey/register/options", { body: {}, headers: bearer(ada.token) })
    ).json()) as { options: Options; challengeToken: string };
    const created = await device.create(regOptions.options);
    await t.request("POST", "/passkey/register/verify", {
      body: { response: created, challengeToken: regOptions.challengeToken },
      headers: bearer(ada.token),
    });
    await t.auth.api.updateUser(ada.userId, { appMetadata: { banned: true } });
    const o = (await (await t.request("POST", "/passkey/authenticate/options", { body: {} })).json()) as {
      options: Options;
      challengeToken: string;
    };
    const banned = await t.request("POST", "/passkey/authenticate/verify", {
      body: { response: await device.get(o.options), challengeToken: o.challengeToken },
    });
    expect(banned.status).toBe(403);
    expect(((await banned.json()) as { code: string }).code).toBe("SIGN_IN_REJECTED");
  });

  it("with user verification a passkey is both factors; without it (preferred) the second step is asked", async () => {
    const s = await setup({ userVerification: "preferred" }, "two-factor");
    await s.register();
    await s.t.store.twoFactor.savePending({
      userId: s.userId,
      secret: "v1.x",
      enabled: false,
      lastStep: null,
      recoveryCodes: [],
      trustedAfter: null,
      createdAt: new Date(s.t.clock.now()),
      updatedAt: new Date(s.t.clock.now()),
    });
    await s.t.store.twoFactor.acceptStep(s.userId, "v1.x", 1, new Date(s.t.clock.now()), { enable: true });
    const withUv = await s.signInOptions();
    const full = await s.verify(await s.authenticator.get(withUv.options), withUv.challengeToken);
    expect(full.status).toBe(200);
    expect(await full.json()).toHaveProperty("session");
    const withoutUv = await s.signInOptions();
    const partial = await s.verify(
      await s.authenticator.get(withoutUv.options, { uv: false }),
      withoutUv.challengeToken,
    );
    expect(partial.status).toBe(200);
    expect(await partial.json()).toMatchObject({ twoFactorRequired: true });
  });

  it("registration needs a session, a fresh one, and the challenge of the same user", async () => {
    const s = await setup();
    expect((await s.post("/passkey/register/options", {})).status).toBe(401);
    const bob = await s.t.signUp("bob@example.com");
    const bobs = await s.registrationOptions(bob.token);
    const res = await s.post(
      "/passkey/register/verify",
      { response: await s.authenticator.create(bobs.options), challengeToken: bobs.challengeToken },
      bearer(s.token),
    );
    expect(await s.code(res)).toBe("PASSKEY_CHALLENGE_INVALID");
    s.t.clock.advance(2 * 24 * 60 * 60_000);
    const stale = await s.post("/passkey/register/options", {}, bearer(s.token));
    expect(stale.status).toBe(403);
    expect(await s.code(stale)).toBe("SESSION_NOT_FRESH");
  });

  it("deleting a user removes their passkeys", async () => {
    const s = await setup();
    const passkey = await s.register();
    await s.t.auth.api.deleteUser(s.userId);
    expect(await s.t.store.passkeys.listByUser(s.userId)).toEqual([]);
    expect(await s.t.store.passkeys.findByCredentialId(passkey.credentialId)).toBeNull();
  });
});
