import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  apiKeys,
  argon2idHasher,
  auditLog,
  emailOtp,
  jwt,
  magicLink,
  twoFactor,
  webCryptoRandom,
  type FullStore,
} from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth } from "../create-auth.ts";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { storeForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { findLeaks, type KnownSecret } from "../../test/secret-scanner.ts";
import { runEveryFlow } from "../../test/every-flow.ts";
import { startOtelSdk, type OtelSdk, type Point } from "../../test/telemetry/otel-test-sdk.ts";

// The app's OpenTelemetry SDK (in-memory exporters) on this run's store: memory, libSQL or PostgreSQL.
const DB_SYSTEM = { memory: "memory", sqlite: "sqlite", postgres: "postgresql" }[testStoreKind()];
/** The only attribute keys Latchkey puts on a span: none can hold an address, IP, token, code or key. */
const SPAN_ATTRIBUTES = new Set([
  "http.request.method",
  "http.route",
  "http.response.status_code",
  "latchkey.error.code",
  "db.system.name",
  "db.operation.name",
  "latchkey.store",
  "error.type",
]);

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

describe(`OpenTelemetry spans (${testStoreKind()} store)`, () => {
  it("a sign-in is one server span `latchkey POST /sign-in/email` with route and status; its store calls are client spans under it with db.system.name and the operation only", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    await sdk.reset();
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
    });
    expect(res.status).toBe(200);
    const spans = sdk.spans();
    const server = spans.filter((s) => s.name.startsWith("latchkey POST"));
    expect(server.map((s) => s.name)).toEqual(["latchkey POST /sign-in/email"]);
    expect(server[0]!.attributes).toEqual({
      "http.request.method": "POST",
      "http.route": "/auth/sign-in/email",
      "http.response.status_code": 200,
    });
    const children = spans.filter((s) => s.name.startsWith("latchkey.store "));
    const operations = children.map((s) => s.attributes["db.operation.name"]);
    expect(operations).toEqual(expect.arrayContaining(["users.findByEmail", "sessions.create"]));
    for (const child of children) {
      expect(child.parentSpanContext?.spanId, child.name).toBe(server[0]!.spanContext().spanId);
      expect(child.attributes["db.system.name"]).toBe(DB_SYSTEM);
      expect(child.name).toBe(`latchkey.store ${child.attributes["db.operation.name"]}`);
    }
    for (const span of spans) for (const key of Object.keys(span.attributes)) expect(SPAN_ATTRIBUTES).toContain(key);
  });

  it("a transaction is a store span `latchkey.store transaction` and the port calls of its body are spans under it", async () => {
    const t = createTestAuth({ plugins: [emailOtp()], rateLimit: { enabled: false } });
    const send = await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "tx@example.com", purpose: "sign-in" },
    });
    expect(send.status).toBe(200);
    await sdk.reset();
    const body = { email: "tx@example.com", otp: t.auth.getOtp("tx@example.com")! };
    expect((await t.request("POST", "/sign-in/email-otp", { body })).status).toBe(200);
    const spans = sdk.spans();
    const transactions = spans.filter((s) => s.name === "latchkey.store transaction");
    expect(transactions).toHaveLength(1);
    const inside = spans
      .filter((s) => s.parentSpanContext?.spanId === transactions[0]!.spanContext().spanId)
      .map((s) => s.name);
    expect(inside).toEqual(
      expect.arrayContaining([
        "latchkey.store verifications.consume",
        "latchkey.store users.create",
        "latchkey.store sessions.create",
      ]),
    );
  });

  it("a refused request carries its status and error code; a store failure marks the store span and the 500 as errors without the driver's message", async () => {
    // users.findByEmail fails while `broken`, with a message quoting a value, as a driver's might.
    let broken = false;
    const inner: FullStore = storeForTestRun() ?? memoryStore();
    const users = new Proxy(inner.users, {
      get: (target, key) =>
        key === "findByEmail" && broken
          ? async () => Promise.reject(new TypeError("value 'ada@example.com' broke the query"))
          : Reflect.get(target, key),
    });
    const store = new Proxy(inner, { get: (target, key) => (key === "users" ? users : Reflect.get(target, key)) });
    const t = createTestAuth({ store });
    await t.signUp("ada@example.com");
    await sdk.reset();
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "wrong guess!!" } }))
        .status,
    ).toBe(401);
    const refused = sdk.spans().find((s) => s.name === "latchkey POST /sign-in/email")!;
    expect(refused.attributes).toMatchObject({
      "http.response.status_code": 401,
      "latchkey.error.code": "INVALID_CREDENTIALS",
    });

    broken = true;
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
    });
    logged.mockRestore();
    expect(res.status).toBe(500);
    const failedStore = sdk.spans().find((s) => s.name === "latchkey.store users.findByEmail" && s.status.code === 2)!;
    expect(failedStore.attributes["error.type"]).toBe("TypeError");
    expect(failedStore.status.message).toBe("TypeError");
    const failed = sdk.spans().filter((s) => s.attributes["http.response.status_code"] === 500);
    expect(failed.map((s) => [s.name, s.status.code, s.attributes["latchkey.error.code"]])).toEqual([
      ["latchkey POST /sign-in/email", 2, "INTERNAL_ERROR"],
    ]);
    expect(JSON.stringify(sdk.spans().map((s) => [s.attributes, s.status, s.events]))).not.toContain("ada@");
  });

  it("an unknown path is one span without a route name (`latchkey GET`), http.route the mount's catch-all", async () => {
    const t = createTestAuth();
    expect((await t.request("GET", "/no-such-endpoint/123")).status).toBe(404);
    const [span] = sdk.spans().filter((s) => s.kind === 1);
    expect(span!.name).toBe("latchkey GET");
    expect(span!.attributes).toMatchObject({ "http.route": "/auth/*", "latchkey.error.code": "NOT_FOUND" });
  });

  it("made-up HTTP methods share one `_OTHER` label: the method label is bounded (Deno and Bun pass any token)", async () => {
    const t = createTestAuth();
    const invented = Array.from({ length: 20 }, (_, i) => `INVENTED${i}`);
    for (const method of invented) await t.request(method, "/session");
    await t.request("GET", "/session");
    await t.request("PATCH", "/session");
    const methods = new Set(
      (await sdk.points())
        .filter((p) => p.name === "latchkey.request.duration")
        .map((p) => p.attributes["http.request.method"]),
    );
    expect([...methods].sort()).toEqual(["GET", "PATCH", "_OTHER"]);
    const names = new Set(
      sdk
        .spans()
        .filter((s) => s.kind === 1)
        .map((s) => s.name.split(" ")[1]),
    );
    expect([...names].sort()).toEqual(["GET", "PATCH", "_OTHER"]);
  });

  it("createAuth({ telemetry: false }) records nothing", async () => {
    const t = createTestAuth({ telemetry: false });
    await t.signUp("ada@example.com");
    expect(sdk.spans()).toEqual([]);
    expect(await sdk.points()).toEqual([]);
  });
});

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

describe(`no secret or personal data in any exported span or metric (${testStoreKind()} store)`, () => {
  const SECRET = "telemetry-secret-0123456789abcdefghijklmnop";

  async function everyFlowExported(): Promise<{ exported: string; secrets: KnownSecret[] }> {
    const store: FullStore = storeForTestRun() ?? memoryStore();
    const auth = createAuth({
      secret: SECRET,
      baseUrl: "https://app.example",
      database: store,
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      rateLimit: { enabled: false },
      email: { sender: { send: async () => undefined } },
      getClientIp: () => "203.0.113.77",
      plugins: [
        emailOtp({ codeLength: 10, emailChange: { enabled: true } }),
        magicLink(),
        twoFactor(),
        apiKeys({ grantablePermissions: { files: ["read"] }, usage: true }),
        jwt(),
        auditLog(),
      ],
    });
    // Personal data the journey uses, next to the secrets it keeps.
    const secrets: KnownSecret[] = [
      { label: "the secret option", value: SECRET },
      { label: "client IP", value: "203.0.113.77" },
      ...["ada@example.com", "ada@new.example", "bob@example.com", "cleo@example.com", "nobody@example.com"].map(
        (value) => ({
          label: "email address",
          value,
        }),
      ),
    ];
    const keep = (label: string, value: string | null | undefined) => {
      if (!value) throw new Error(`no ${label} to keep`);
      secrets.push({ label, value });
      return value;
    };
    const codes: Array<{ identifier: string; purpose: string; plain: string }> = [];
    auth.events.on("OtpGenerated", (e) => {
      codes.push({ identifier: e.identifier, purpose: e.purpose, plain: e.plain });
      keep(`${e.purpose} code/token`, e.plain);
    });
    auth.events.onAny((e) => {
      if ("userId" in e && typeof e.userId === "string") keep("user id", e.userId);
    });
    const background: Promise<unknown>[] = [];
    const executionCtx = { waitUntil: (p: Promise<unknown>) => void background.push(p), passThroughOnException() {} };
    await runEveryFlow({
      store,
      keep,
      settle: async () => void (await Promise.all(background)),
      latest(identifier, purpose) {
        const found = [...codes].reverse().find((c) => c.identifier === identifier && c.purpose === purpose);
        if (!found) throw new Error(`no ${purpose} code for ${identifier}`);
        return found.plain;
      },
      async json(method, path, init = {}, status = 200) {
        const headers: Record<string, string> = { ...init.headers };
        if (init.token) headers.authorization = `Bearer ${init.token}`;
        if (init.body !== undefined) headers["content-type"] = "application/json";
        const res = await auth.handler(
          new Request(`https://app.example/auth${path}`, {
            method,
            headers,
            body: init.body === undefined ? undefined : JSON.stringify(init.body),
          }),
          {},
          executionCtx,
        );
        const jwtHeader = res.headers.get("set-auth-jwt");
        if (jwtHeader) keep("JWT (set-auth-jwt)", jwtHeader);
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBe(status);
        return JSON.parse(text);
      },
    });
    return { exported: await sdk.exported(), secrets };
  }

  it("sign-up to account deletion, OTP of every purpose, resets, email change, API keys, JWT: every span and data point scanned", async () => {
    const { exported, secrets } = await everyFlowExported();
    // The scan saw the whole journey: many routes, store spans, and the secrets it looks for.
    const parsed = JSON.parse(exported) as { spans: Array<{ name: string }> };
    expect(new Set(parsed.spans.map((s) => s.name)).size).toBeGreaterThan(40);
    expect(parsed.spans.filter((s) => s.name.startsWith("latchkey.store ")).length).toBeGreaterThan(100);
    const labels = new Set(secrets.map((s) => s.label));
    for (const label of [
      "password",
      "session token",
      "API key",
      "JWT",
      "sign-in code/token",
      "user id",
      "email address",
    ])
      expect(labels, label).toContain(label);
    expect(findLeaks({ telemetry: exported }, secrets)).toEqual([]);
  }, 120_000);

  it("the scan finds a secret planted in a span attribute (it can fail)", async () => {
    const { secrets } = await everyFlowExported();
    const { trace } = await import("@opentelemetry/api");
    const apiKey = secrets.find((s) => s.label === "API key")!.value;
    trace
      .getTracer("planted")
      .startSpan("innocent", { attributes: { note: `key ${apiKey}` } })
      .end();
    const leaks = findLeaks({ telemetry: await sdk.exported() }, secrets);
    expect(leaks.map((l) => l.label)).toContain("API key");
  }, 120_000);
});
