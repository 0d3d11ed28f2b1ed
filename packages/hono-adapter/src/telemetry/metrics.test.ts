import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiKeys, emailOtp } from "@latchkey/core";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";
import { startOtelSdk, type OtelSdk, type Point } from "../../test/telemetry/otel-test-sdk.ts";

// The app's OpenTelemetry SDK (in-memory exporters) on this run's store: memory, libSQL or PostgreSQL.
let sdk: OtelSdk;
beforeAll(() => {
  sdk = startOtelSdk();
});
afterAll(() => sdk.stop());
beforeEach(() => sdk.reset());

const sum = (points: Point[], name: string, attributes: Record<string, unknown> = {}) =>
  points
    .filter((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
    .reduce((n, p) => n + p.value, 0);

describe(`OpenTelemetry metrics (${testStoreKind()} store)`, () => {
  it("sign-ins by method and outcome, sign-ups, lockouts, 429s, revoked sessions and request duration by route", async () => {
    const t = createTestAuth({
      lockout: { maxFailures: 2 },
      rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 4 } } },
    });
    const { token } = await t.signUp("ada@example.com");
    const signIn = async (password: string) => {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password },
        ip: "192.0.2.7",
      });
      return res.status === 200 ? "success" : (await res.json()).code;
    };
    expect(await signIn("correct horse battery")).toBe("success");
    expect(await signIn("wrong guess one")).toBe("INVALID_CREDENTIALS");
    expect(await signIn("wrong guess two")).toBe("INVALID_CREDENTIALS"); // the second failure locks
    expect(await signIn("correct horse battery")).toBe("ACCOUNT_LOCKED"); // 429, but not a rate limit
    expect(await signIn("correct horse battery")).toBe("RATE_LIMITED"); // the fifth in the minute
    expect((await t.request("POST", "/sign-out", { headers: bearer(token) })).status).toBe(200);

    const points = await sdk.points();
    const method = { "latchkey.sign_in.method": "password" };
    expect(sum(points, "latchkey.sign_ins", { ...method, "latchkey.outcome": "success" })).toBe(1);
    expect(sum(points, "latchkey.sign_ins", { ...method, "latchkey.outcome": "INVALID_CREDENTIALS" })).toBe(2);
    expect(sum(points, "latchkey.sign_ins", { ...method, "latchkey.outcome": "ACCOUNT_LOCKED" })).toBe(1);
    expect(sum(points, "latchkey.sign_ins", { ...method, "latchkey.outcome": "RATE_LIMITED" })).toBe(1);
    expect(sum(points, "latchkey.sign_ups")).toBe(1);
    expect(sum(points, "latchkey.lockouts")).toBe(1);
    expect(sum(points, "latchkey.rate_limited", { "http.route": "/auth/sign-in/email" })).toBe(1);
    expect(sum(points, "latchkey.sessions.revoked")).toBe(1);
    expect(sum(points, "latchkey.request.duration", { "http.route": "/auth/sign-in/email" })).toBe(5);
    expect(sum(points, "latchkey.request.duration", { "http.route": "/auth/sign-up/email" })).toBe(1);
  });

  it("the lookup cache: its size and its lookups by result (the hit rate) are metrics", async () => {
    const t = createTestAuth({ cache: {} });
    const { token } = await t.signUp("ada@example.com");
    for (let i = 0; i < 3; i++)
      expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(200);
    const stats = t.auth.cache!.stats();
    expect(stats.hits).toBeGreaterThan(0);
    const points = await sdk.points();
    expect(sum(points, "latchkey.cache.entries")).toBe(stats.entries);
    expect(stats.entries).toBeGreaterThan(0);
    expect(sum(points, "latchkey.cache.lookups", { "latchkey.cache.result": "hit" })).toBe(stats.hits);
    expect(sum(points, "latchkey.cache.lookups", { "latchkey.cache.result": "miss" })).toBe(stats.misses);
  });

  it("codes sent, verified and failed by purpose; API-key verifies by result", async () => {
    const t = createTestAuth({ plugins: [emailOtp(), apiKeys()], rateLimit: { enabled: false } });
    const send = await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "otp@example.com", purpose: "sign-in" },
    });
    expect(send.status).toBe(200);
    const code = t.auth.getOtp("otp@example.com")!;
    const wrong = code === "000000" ? "111111" : "000000";
    expect(
      (await t.request("POST", "/sign-in/email-otp", { body: { email: "otp@example.com", otp: wrong } })).status,
    ).toBe(400);
    const signedIn = await t.request("POST", "/sign-in/email-otp", { body: { email: "otp@example.com", otp: code } });
    expect(signedIn.status).toBe(200);
    const session = (await signedIn.json()).credentials.token as string;
    const created = await t.request("POST", "/api-key/create", { headers: bearer(session), body: { name: "ci" } });
    const key = (await created.json()).key as string;
    const verify = (k: string) => t.request("POST", "/api-key/verify", { body: { key: k } });
    expect((await (await verify(key)).json()).valid).toBe(true);
    const forged = `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;
    expect((await (await verify(forged)).json()).valid).toBe(false);

    const points = await sdk.points();
    const purpose = { "latchkey.otp.purpose": "sign-in" };
    expect(sum(points, "latchkey.otp.sent", purpose)).toBe(1);
    expect(sum(points, "latchkey.otp.failed", purpose)).toBe(1);
    expect(sum(points, "latchkey.otp.verified", purpose)).toBe(1);
    const otp = { "latchkey.sign_in.method": "email-otp" };
    expect(sum(points, "latchkey.sign_ins", { ...otp, "latchkey.outcome": "success" })).toBe(1);
    expect(sum(points, "latchkey.sign_ins", { ...otp, "latchkey.outcome": "INVALID_OTP" })).toBe(1);
    expect(sum(points, "latchkey.api_key.verifies", { "latchkey.api_key.result": "VALID" })).toBe(1);
    expect(sum(points, "latchkey.api_key.verifies", { "latchkey.api_key.result": "INVALID_API_KEY" })).toBe(1);
  });
});
