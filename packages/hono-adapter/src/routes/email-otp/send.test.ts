import { describe, expect, it } from "vitest";
import type { EmailMessage, FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createOtpTestAuth, freshIp } from "./fixtures.ts";

const SEND = "/email-otp/send-verification-otp";

/** Wraps a store so every users/verifications call is recorded in order. */
function recordingStore(): { store: FullStore; calls: string[] } {
  const inner = memoryStore();
  const calls: string[] = [];
  const wrap = <T extends object>(group: string, target: T): T =>
    new Proxy(target, {
      get(obj, name, receiver) {
        const value = Reflect.get(obj, name, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(`${group}.${String(name)}`);
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  return {
    store: { ...inner, users: wrap("users", inner.users), verifications: wrap("verifications", inner.verifications) },
    calls,
  };
}

describe("send endpoints never reveal whether an email is registered", () => {
  for (const [path, purpose] of [
    [SEND, "email-verification"],
    [SEND, "password-reset"],
    ["/email-otp/request-password-reset", undefined],
  ] as const) {
    it(`${path}${purpose ? ` (${purpose})` : ""}: known and unknown emails get identical status and body; the unknown one gets no email, no row, no event`, async () => {
      const t = createOtpTestAuth();
      await t.signUp("ada@example.com");
      const body = (email: string) => (purpose ? { email, purpose } : { email });
      const known = await t.post(path, body("ada@example.com"));
      const unknown = await t.post(path, body("nobody@example.com"));
      expect(unknown.status).toBe(known.status);
      expect(await unknown.text()).toBe(await known.text());
      expect([...unknown.headers.keys()].sort()).toEqual([...known.headers.keys()].sort());
      await t.settle();
      expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
      expect(t.generated.map((g) => g.identifier)).toEqual(["ada@example.com"]);
      const kind = purpose ?? "password-reset";
      expect(await t.row(kind, "ada@example.com")).not.toBeNull();
      expect(await t.row(kind, "nobody@example.com")).toBeNull();
    });
  }

  it("known and unknown emails do the same store work: one user lookup and one identifier-keyed verification write", async () => {
    const { store, calls } = recordingStore();
    const t = createOtpTestAuth({}, { store });
    await t.signUp("ada@example.com");
    calls.length = 0;
    await t.post(SEND, { email: "ada@example.com", purpose: "password-reset" });
    const known = calls.splice(0);
    await t.post(SEND, { email: "nobody@example.com", purpose: "password-reset" });
    const unknown = calls.splice(0);
    expect(known).toEqual(["users.findByEmail", "verifications.issue"]);
    expect(unknown).toEqual(["users.findByEmail", "verifications.deleteByIdentifier"]);
  });

  it("delivery never holds or fails the answer: a hanging or failing sender still gets {success: true}", async () => {
    const hanging: EmailMessage[] = [];
    const t = createOtpTestAuth(
      {},
      { email: { sender: { send: (m) => (hanging.push(m), new Promise<void>(() => {})) } } },
    );
    await t.auth.api.createUser({ email: "ada@example.com", password: "long enough pw" });
    const res = await t.post(SEND, { email: "ada@example.com", purpose: "password-reset" });
    expect(res.status).toBe(200);
    expect(hanging).toHaveLength(1);
    const failing = createOtpTestAuth(
      {},
      {
        email: {
          sender: {
            send: async () => {
              throw new Error("smtp down");
            },
          },
        },
      },
    );
    await failing.auth.api.createUser({ email: "ada@example.com", password: "long enough pw" });
    const res2 = await failing.post(SEND, { email: "ada@example.com", purpose: "password-reset" });
    expect(res2.status).toBe(200);
    expect(await res2.json()).toEqual({ success: true });
  });
});

describe("send eligibility", () => {
  it("sign-in codes go to unknown emails when allowSignUp (row without user) and to users (row bound to the user)", async () => {
    const t = createOtpTestAuth();
    const { userId } = await t.signUp("ada@example.com");
    expect(await t.sendCode("new@example.com", "sign-in")).toMatch(/^[0-9]{6}$/);
    expect(await t.sendCode("ada@example.com", "sign-in")).toMatch(/^[0-9]{6}$/);
    expect((await t.row("sign-in", "new@example.com"))!.userId).toBeNull();
    expect((await t.row("sign-in", "ada@example.com"))!.userId).toBe(userId);
    await t.settle();
    expect(t.emails.sent.map((m) => m.to)).toEqual(["new@example.com", "ada@example.com"]);
  });

  it("with allowSignUp false an unknown email gets the same answer but no code, row or email", async () => {
    const t = createOtpTestAuth({ allowSignUp: false });
    await t.signUp("ada@example.com");
    const known = await t.post(SEND, { email: "ada@example.com", purpose: "sign-in" });
    const unknown = await t.post(SEND, { email: "new@example.com", purpose: "sign-in" });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual(await known.json());
    expect(await t.row("sign-in", "new@example.com")).toBeNull();
    await t.settle();
    expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
    expect(t.auth.getOtp("new@example.com")).toBeUndefined();
  });

  it("email-verification codes also go to verified users (the current-email proof of an email change needs them)", async () => {
    const t = createOtpTestAuth();
    await t.auth.api.createUser({ email: "ada@example.com", password: "long enough pw", emailVerified: true });
    expect(await t.sendCode("ada@example.com", "email-verification")).toMatch(/^[0-9]{6}$/);
  });
});

describe("per-IP rate limit", () => {
  it("the 4th send from one IP within a minute is 429 RATE_LIMITED with Retry-After; another IP is unaffected; the next minute is open again", async () => {
    const t = createOtpTestAuth();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      const res = await t.post(SEND, { email: `u${i}@example.com`, purpose: "sign-in" }, { ip });
      expect(res.status).toBe(200);
    }
    const limited = await t.post(SEND, { email: "u3@example.com", purpose: "sign-in" }, { ip });
    expect(limited.status).toBe(429);
    expect((await limited.json()).code).toBe("RATE_LIMITED");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await t.row("sign-in", "u3@example.com")).toBeNull();
    expect((await t.post(SEND, { email: "u3@example.com", purpose: "sign-in" }, { ip: freshIp() })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await t.post(SEND, { email: "u4@example.com", purpose: "sign-in" }, { ip })).status).toBe(200);
  });

  it("request-password-reset has its own 3 per minute, and consume endpoints allow 10 per minute", async () => {
    const t = createOtpTestAuth();
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.post("/email-otp/request-password-reset", { email: "a@example.com" }, { ip })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const checks: number[] = [];
    for (let i = 0; i < 11; i++)
      checks.push(
        (
          await t.post(
            "/email-otp/check-verification-otp",
            { email: "a@example.com", purpose: "sign-in", otp: "000000" },
            { ip },
          )
        ).status,
      );
    expect(checks.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(checks[10]).toBe(429);
  });
});

describe("delivery", () => {
  it("plugin templates per purpose win over email.templates, which win over the built-in otp.* templates", async () => {
    const t = createOtpTestAuth(
      {
        templates: {
          "otp-sign-in.subject": "Sign-in code {{otp}}",
          "otp.txt": "Plugin says {{otp}} to {{action}} ({{expiresInMinutes}} min)",
        },
      },
      { email: { templates: { "otp.subject": "Global {{action}}", "otp-password-reset.txt": "Reset with {{otp}}" } } },
    );
    await t.signUp("ada@example.com");
    const signIn = (await t.sendCode("ada@example.com", "sign-in"))!;
    await t.settle();
    const signInMail = t.emails.last("ada@example.com")!;
    expect(signInMail.subject).toBe(`Sign-in code ${signIn}`);
    expect(signInMail.text).toBe(`Plugin says ${signIn} to sign in (5 min)`);
    expect(signInMail.html).toContain(signIn);
    const reset = (await t.sendCode("ada@example.com", "password-reset"))!;
    await t.settle();
    const resetMail = t.emails.last("ada@example.com")!;
    expect(resetMail.subject).toBe("Global reset your password");
    expect(resetMail.text).toBe(`Reset with ${reset}`);
    expect(resetMail.template).toBe("otp-password-reset");
  });

  it("send and sign-in refuse cross-site top-level navigations", async () => {
    const t = createOtpTestAuth();
    const headers = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" };
    for (const [path, body] of [
      [SEND, { email: "a@example.com", purpose: "sign-in" }],
      ["/sign-in/email-otp", { email: "a@example.com", otp: "123456" }],
      ["/email-otp/request-password-reset", { email: "a@example.com" }],
    ] as const) {
      const res = await t.post(path, body, { headers });
      expect(res.status, path).toBe(403);
      expect((await res.json()).code).toBe("INVALID_ORIGIN");
    }
    expect(t.generated).toEqual([]);
  });
});
