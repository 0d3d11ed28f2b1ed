import { describe, expect, it } from "vitest";
import { hashSecret, magicLink, type Duration, type MagicLinkOptions } from "@latchkey/core";
import { bearer, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
let ipSeq = 0;
const ip = () => `198.18.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

function setup(
  options: MagicLinkOptions = {},
  extra: { trustedOrigins?: string[]; email?: { resendCooldown: Duration } } = {},
) {
  const t = createTestAuth({ ...extra, plugins: [magicLink(options)] });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request("POST", path, { body, ip: ip(), headers });
  /** Asks for a link and answers the emailed URL (undefined when no email went out). */
  const send = async (email: string, body: Record<string, unknown> = {}) => {
    const before = t.emails.sent.length;
    const res = await post("/sign-in/magic-link", { email, ...body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    await t.settle();
    const mail = t.emails.sent.slice(before).find((m) => m.to === email.toLowerCase());
    return mail ? new URL(/https:\/\/\S+/.exec(mail.text)![0]) : undefined;
  };
  const verify = (url: URL, headers: Record<string, string> = {}) =>
    post(
      "/magic-link/verify",
      { token: url.searchParams.get("token"), callbackURL: url.searchParams.get("callbackURL") },
      headers,
    );
  return { t, post, send, verify };
}

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

async function linkRow(t: TestAuth, email: string) {
  return t.store.verifications.findByIdentifier(`magic-link:${email}`);
}

describe("magic link", () => {
  it("a new email: the emailed link opens a page that spends nothing; its POST creates a verified user and signs in", async () => {
    const { t, send, verify } = setup();
    const seen: string[] = [];
    t.auth.events.onAny((e) => void seen.push(e.type));
    const url = (await send("New@Example.com", { callbackURL: "/dashboard", name: "Newt" }))!;
    expect(`${url.origin}${url.pathname}`).toBe("https://app.example/auth/magic-link/verify");
    expect(url.searchParams.get("callbackURL")).toBe("https://app.example/dashboard");
    const token = url.searchParams.get("token")!;
    // Only the hash is at rest.
    const row = (await linkRow(t, "new@example.com"))!;
    expect(row.valueHash).toBe(hashSecret(token));
    expect(JSON.stringify(row)).not.toContain(token);

    // A mail scanner fetching the link: a page with one button, the token untouched.
    for (let i = 0; i < 2; i++) {
      const page = await t.request("GET", `/magic-link/verify${url.search}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("cache-control")).toBe("no-store");
      const csp = page.headers.get("content-security-policy")!;
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      const html = await page.text();
      expect(html).toContain(`<script nonce="${nonce}">`);
      expect(html).toContain('<button id="go"');
      expect(html).not.toContain(token);
      expect(await linkRow(t, "new@example.com")).not.toBeNull();
    }
    expect(await t.store.users.findByEmail("new@example.com")).toBeNull();

    const res = await verify(url);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.callbackURL).toBe("https://app.example/dashboard");
    expect(body.user).toMatchObject({ email: "new@example.com", emailVerified: true, name: "Newt" });
    expect(res.headers.get("set-cookie")).toContain(body.credentials.token);
    const user = (await t.store.users.findByEmail("new@example.com"))!;
    expect((await t.store.accounts.listByUser(user.id)).map((a) => a.providerId)).toEqual(["MAGIC_LINK"]);
    const session = await t.request("GET", "/get-session", { headers: bearer(body.credentials.token) });
    expect((await session.json()).user.id).toBe(user.id);
    expect(await linkRow(t, "new@example.com")).toBeNull();
    expect(seen).toEqual(expect.arrayContaining(["OtpRequested", "UserSignedUp", "OtpVerified", "UserSignedIn"]));

    // Single use.
    const again = await verify(url);
    expect(again.status).toBe(400);
    expect(await codeOf(again)).toBe("INVALID_TOKEN");
  });

  it("an existing user signs in without a new user; `name` is ignored and the password stays", async () => {
    const { t, send, verify, post } = setup();
    await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, name: "Ada", emailVerified: true });
    const res = await verify((await send("ada@example.com", { name: "Mallory" }))!);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.user).toMatchObject({ email: "ada@example.com", name: "Ada" });
    expect(body.callbackURL).toBe("https://app.example/");
    const providers = (await t.store.accounts.listByUser(body.user.id)).map((a) => a.providerId).sort();
    expect(providers).toEqual(["MAGIC_LINK", "credential"]);
    expect((await post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(200);
  });

  it("of parallel requests with one link exactly one signs in, and one user exists", async () => {
    const { t, send, verify } = setup();
    const url = (await send("race@example.com"))!;
    const answers = await Promise.all(Array.from({ length: 6 }, () => verify(url)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const r of answers) if (r.status === 400) expect(await codeOf(r)).toBe("INVALID_TOKEN");
    const user = (await t.store.users.findByEmail("race@example.com"))!;
    expect((await t.store.sessions.listByUser(user.id)).length).toBe(1);
  });

  it("is enumeration-safe: with allowSignUp false an unknown address gets the same answer and nothing is sent", async () => {
    const { t, send } = setup({ allowSignUp: false });
    await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    expect(await send("nobody@example.com")).toBeUndefined();
    expect(await linkRow(t, "nobody@example.com")).toBeNull();
    expect(t.emails.sent.filter((m) => m.to === "nobody@example.com")).toEqual([]);
    expect(await send("ada@example.com")).toBeDefined();
  });

  it("a link spent on an unverified account registered by someone else removes that password and its sessions", async () => {
    const { t, send, verify, post } = setup();
    // The attacker registers the victim's address first (unverified) and keeps a session.
    const attacker = await t.signUp("victim@example.com", "attacker password 1");
    const res = await verify((await send("victim@example.com"))!);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.user).toMatchObject({ id: attacker.userId, emailVerified: true });
    expect((await t.store.accounts.listByUser(attacker.userId)).map((a) => a.providerId)).toEqual(["MAGIC_LINK"]);
    const sessions = await t.store.sessions.listByUser(attacker.userId);
    expect(sessions.map((s) => s.id)).toEqual([body.session.id]);
    const old = await t.request("GET", "/get-session", { headers: bearer(attacker.token) });
    expect(await old.json()).toBeNull();
    const pw = await post("/sign-in/email", { email: "victim@example.com", password: "attacker password 1" });
    expect(pw.status).toBe(401);
  });

  it("callbackURL goes only to trusted origins, on the send and on the spend (the link survives a refused spend)", async () => {
    const { t, send, verify, post } = setup({}, { trustedOrigins: ["https://admin.example"] });
    for (const callbackURL of ["https://evil.example/x", "//evil.example", "javascript:alert(1)", "/\\evil.example"]) {
      const res = await post("/sign-in/magic-link", { email: "ada@example.com", callbackURL });
      expect(res.status, callbackURL).toBe(400);
      expect(await codeOf(res)).toBe("INVALID_CALLBACK_URL");
    }
    await t.settle();
    expect(t.emails.sent).toEqual([]);
    const url = (await send("ada@example.com", { callbackURL: "https://admin.example/home" }))!;
    const evil = new URL(url);
    evil.searchParams.set("callbackURL", "https://evil.example/");
    const refused = await verify(evil);
    expect(refused.status).toBe(400);
    expect(await codeOf(refused)).toBe("INVALID_CALLBACK_URL");
    const res = await verify(url);
    expect(res.status).toBe(200);
    expect((await res.json()).callbackURL).toBe("https://admin.example/home");
  });

  it("an expired or superseded link is INVALID_TOKEN; a malformed token changes nothing", async () => {
    const { t, send, verify, post } = setup({ expiresIn: "5m" });
    const first = (await send("ada@example.com"))!;
    const second = (await send("ada@example.com"))!;
    expect(await codeOf(await verify(first))).toBe("INVALID_TOKEN");
    t.clock.advance(5 * 60_000);
    const expired = await verify(second);
    expect(expired.status).toBe(400);
    expect(await codeOf(expired)).toBe("INVALID_TOKEN");
    expect(await t.store.users.findByEmail("ada@example.com")).toBeNull();
    for (const token of ["", "not a token", "x".repeat(300)]) {
      const res = await post("/magic-link/verify", { token });
      expect(res.status).toBe(400);
    }
    expect((await post("/magic-link/verify", {})).status).toBe(400);
  });

  it("follows the send limits: a second request inside the cooldown is 429, sends nothing, and the first link stays valid", async () => {
    const { t, verify } = setup({}, { email: { resendCooldown: "1m" } });
    // The cooldown is per requesting network (docs/email.md, "Send limits"): both requests come from one.
    const ask = () => t.request("POST", "/sign-in/magic-link", { body: { email: "ada@example.com" }, ip: "192.0.2.9" });
    expect((await ask()).status).toBe(200);
    await t.settle();
    const first = new URL(/https:\/\/\S+/.exec(t.emails.sent.at(-1)!.text)![0]);
    const again = await ask();
    expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await verify(first)).status).toBe(200);
    expect(t.emails.sent.length).toBe(1);
  });

  it("confirmURL: the emailed link opens the app's page instead of the built-in one", async () => {
    const { send } = setup({ confirmURL: "/confirm-sign-in" });
    const url = (await send("ada@example.com"))!;
    expect(`${url.origin}${url.pathname}`).toBe("https://app.example/confirm-sign-in");
    expect(url.searchParams.get("token")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("without the plugin the routes are 404", async () => {
    const t = createTestAuth();
    expect((await t.request("POST", "/sign-in/magic-link", { body: { email: "a@example.com" } })).status).toBe(404);
    expect((await t.request("GET", "/magic-link/verify?token=x")).status).toBe(404);
  });
});
