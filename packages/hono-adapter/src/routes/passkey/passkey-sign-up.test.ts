import { describe, expect, it } from "vitest";
import { AuthConfigError, emailOtp, passkeys, type AuthEvent } from "@latchkey/core";
import { BASE_URL, bearer, createTestAuth } from "../../../test/test-auth.ts";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";

const RP_ID = "app.example";
type CreationOptions = Parameters<SoftwareAuthenticator["create"]>[0];
type RequestOptions = Parameters<SoftwareAuthenticator["get"]>[0];
type SignedIn = { user: { id: string; email: string; emailVerified: boolean }; credentials: { token: string } };

function setup(extra: { otp?: boolean } = {}) {
  const plugin = passkeys({ rpId: RP_ID, rpName: "Example", allowPasskeyOnlyAccounts: true });
  const t = createTestAuth({ plugins: extra.otp ? [plugin, emailOtp()] : [plugin] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request("POST", path, { body, headers });
  const code = async (res: Response) => ((await res.json()) as { code: string }).code;
  async function options(email: string, name?: string) {
    const res = await post("/passkey/sign-up/options", { email, name });
    expect(res.status).toBe(200);
    return (await res.json()) as { options: CreationOptions; challengeToken: string };
  }
  /** Signs up `email` with a new authenticator: the response and the device. */
  async function signUp(email: string, device = new SoftwareAuthenticator({ origin: BASE_URL })) {
    const { options: creation, challengeToken } = await options(email);
    const res = await post("/passkey/sign-up/verify", {
      response: await device.create(creation),
      challengeToken,
      name: "Laptop",
    });
    expect(res.status).toBe(200);
    return { body: (await res.json()) as SignedIn, device };
  }
  async function signIn(device: SoftwareAuthenticator) {
    const res = await post("/passkey/authenticate/options", {});
    const { options: request, challengeToken } = (await res.json()) as {
      options: RequestOptions;
      challengeToken: string;
    };
    return post("/passkey/authenticate/verify", { response: await device.get(request), challengeToken });
  }
  return { t, events, post, code, options, signUp, signIn };
}

describe("sign-up with a passkey (allowPasskeyOnlyAccounts)", () => {
  it("creates the user (not verified, no password), the passkey and a session together; signs in with it later", async () => {
    const s = setup();
    const { options } = await s.options("Grace@Example.com", "Grace Hopper");
    expect(options).toMatchObject({
      user: { name: "grace@example.com", displayName: "Grace Hopper" },
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: [],
      attestation: "none",
    });
    const { body, device } = await s.signUp("grace@example.com");
    expect(body.user).toMatchObject({ email: "grace@example.com", emailVerified: false });
    const user = (await s.t.store.users.findByEmail("grace@example.com"))!;
    expect(user.id).toBe(body.user.id);
    expect(await s.t.store.accounts.listByUser(user.id)).toEqual([]);
    const stored = await s.t.store.passkeys.listByUser(user.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.name).toBe("Laptop");
    expect(await s.t.store.sessions.listByUser(user.id)).toHaveLength(1);
    expect(s.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["UserSignedUp", "PasskeyAdded", "UserSignedIn"]),
    );
    const me = await s.t.request("GET", "/get-session", { headers: bearer(body.credentials.token) });
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(user.id);

    // Later: a discoverable sign-in finds the account by the passkey alone.
    const again = await s.signIn(device);
    expect(again.status).toBe(200);
    expect(((await again.json()) as SignedIn).user.id).toBe(user.id);
    // The only way in cannot be deleted; a password set later can make it deletable.
    const del = await s.t.request("DELETE", `/passkey/${stored[0]!.id}`, { headers: bearer(body.credentials.token) });
    expect(del.status).toBe(409);
    expect(await s.code(del)).toBe("LAST_ACCOUNT");
    expect(await s.t.store.passkeys.listByUser(user.id)).toHaveLength(1);
    // There is no password to sign in with.
    const password = await s.post("/sign-in/email", { email: "grace@example.com", password: "anything-at-all-1" });
    expect(password.status).toBe(401);
  });

  it("a taken email is refused before the authenticator makes anything, and again at verify when taken meanwhile", async () => {
    const s = setup();
    await s.t.signUp("ada@example.com");
    const early = await s.post("/passkey/sign-up/options", { email: "ADA@example.com" });
    expect(early.status).toBe(422);
    expect(await s.code(early)).toBe("USER_ALREADY_EXISTS");

    const { options, challengeToken } = await s.options("grace@example.com");
    const response = await new SoftwareAuthenticator({ origin: BASE_URL }).create(options);
    // The address gets an account (a password sign-up) between the options and the verify.
    await s.t.signUp("grace@example.com");
    const late = await s.post("/passkey/sign-up/verify", { response, challengeToken });
    expect(late.status).toBe(422);
    expect(await s.code(late)).toBe("USER_ALREADY_EXISTS");
    const grace = (await s.t.store.users.findByEmail("grace@example.com"))!;
    expect(await s.t.store.passkeys.listByUser(grace.id)).toEqual([]);
    expect(await s.t.store.passkeys.findByCredentialId(response.id)).toBeNull();
  });

  it("a sign-up challenge is single-use: a replay and two verifies racing give one account", async () => {
    const s = setup();
    const { options, challengeToken } = await s.options("grace@example.com");
    const response = await new SoftwareAuthenticator({ origin: BASE_URL }).create(options);
    const verify = () => s.post("/passkey/sign-up/verify", { response, challengeToken });
    const [a, b] = await Promise.all([verify(), verify()]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    const replay = await verify();
    expect(await s.code(replay)).toBe("PASSKEY_CHALLENGE_INVALID");
    const user = (await s.t.store.users.findByEmail("grace@example.com"))!;
    expect(await s.t.store.passkeys.listByUser(user.id)).toHaveLength(1);
    expect(await s.t.store.sessions.listByUser(user.id)).toHaveLength(1);
    // A sign-in challenge does not sign up, and a bad response writes no user.
    const other = await s.post("/passkey/authenticate/options", {});
    const { challengeToken: signInToken } = (await other.json()) as { challengeToken: string };
    const fresh = await s.options("linus@example.com");
    const cross = await s.post("/passkey/sign-up/verify", {
      response: await new SoftwareAuthenticator({ origin: BASE_URL }).create(fresh.options),
      challengeToken: signInToken,
    });
    expect(await s.code(cross)).toBe("PASSKEY_CHALLENGE_INVALID");
    const evil = await s.options("linus@example.com");
    const wrongOrigin = await s.post("/passkey/sign-up/verify", {
      response: await new SoftwareAuthenticator({ origin: BASE_URL }).create(evil.options, {
        origin: "https://evil.example",
      }),
      challengeToken: evil.challengeToken,
    });
    expect(wrongOrigin.status).toBe(400);
    expect(await s.code(wrongOrigin)).toBe("INVALID_PASSKEY_RESPONSE");
    expect(await s.t.store.users.findByEmail("linus@example.com")).toBeNull();
  });

  it("a code proven with the sign-up's own session keeps the passkey; a link opened elsewhere removes it", async () => {
    const s = setup({ otp: true });
    const { body, device } = await s.signUp("grace@example.com");
    const session = bearer(body.credentials.token);
    await s.post("/email-otp/send-verification-otp", { email: "grace@example.com", purpose: "email-verification" });
    const otp = s.t.auth.getOtp("grace@example.com")!;
    const proven = await s.post("/email-otp/verify-email", { email: "grace@example.com", otp }, session);
    expect(proven.status).toBe(200);
    const user = (await s.t.store.users.findByEmail("grace@example.com"))!;
    expect(user.emailVerified).toBe(true);
    expect(await s.t.store.passkeys.listByUser(user.id)).toHaveLength(1);
    expect((await s.signIn(device)).status).toBe(200);

    // Someone signs up with another person's address and their own authenticator (pre-account hijacking); the
    // owner of the mailbox opens the verification link in their own browser: the registrant's passkey goes.
    const { device: attacker } = await s.signUp("victim@example.com");
    await s.post("/send-verification-email", { email: "victim@example.com" });
    await s.t.settle();
    const token = s.t.auth.getOtp("victim@example.com")!;
    const link = await s.post("/verify-email", { email: "victim@example.com", token });
    expect(link.status).toBe(200);
    const victim = (await s.t.store.users.findByEmail("victim@example.com"))!;
    expect(victim.emailVerified).toBe(true);
    expect(await s.t.store.passkeys.listByUser(victim.id)).toEqual([]);
    expect(s.events.filter((e) => e.type === "PasskeyRemoved" && e.userId === victim.id)).toHaveLength(1);
    const refused = await s.signIn(attacker);
    expect(refused.status).toBe(401);
    expect(await s.code(refused)).toBe("UNKNOWN_PASSKEY");
  });

  it("a password user's passkey added before the first proof of the mailbox goes with that proof too", async () => {
    const s = setup();
    const { token, userId } = await s.t.signUp("ada@example.com");
    const res = await s.post("/passkey/register/options", {}, bearer(token));
    const { options, challengeToken } = (await res.json()) as { options: CreationOptions; challengeToken: string };
    const device = new SoftwareAuthenticator({ origin: BASE_URL });
    const added = await s.post(
      "/passkey/register/verify",
      { response: await device.create(options), challengeToken },
      bearer(token),
    );
    expect(added.status).toBe(200);
    await s.post("/send-verification-email", { email: "ada@example.com" });
    await s.t.settle();
    const link = await s.post("/verify-email", {
      email: "ada@example.com",
      token: s.t.auth.getOtp("ada@example.com")!,
    });
    expect(link.status).toBe(200);
    expect(await s.t.store.passkeys.listByUser(userId)).toEqual([]);
    expect(await s.code(await s.signIn(device))).toBe("UNKNOWN_PASSKEY");
  });

  it("is off by default (404), and refused with requireVerifiedForSignIn", async () => {
    const t = createTestAuth({ plugins: [passkeys({ rpId: RP_ID, rpName: "Example" })] });
    const res = await t.request("POST", "/passkey/sign-up/options", { body: { email: "grace@example.com" } });
    expect(res.status).toBe(404);
    expect(() =>
      createTestAuth({
        emailVerification: { requireVerifiedForSignIn: true },
        plugins: [passkeys({ rpId: RP_ID, rpName: "Example", allowPasskeyOnlyAccounts: true })],
      }),
    ).toThrow(AuthConfigError);
  });

  it("bad input is a 4xx and writes nothing", async () => {
    const s = setup();
    const bad = await s.post("/passkey/sign-up/options", { email: "not-an-address" });
    expect(bad.status).toBe(400);
    const { challengeToken } = await s.options("grace@example.com");
    const junk = await s.post("/passkey/sign-up/verify", {
      response: {
        id: "AAAA",
        rawId: "AAAA",
        type: "public-key",
        response: { clientDataJSON: "e30", attestationObject: "oA" },
      },
      challengeToken,
    });
    expect(junk.status).toBe(400);
    expect(await s.t.store.users.findByEmail("grace@example.com")).toBeNull();
  });
});
