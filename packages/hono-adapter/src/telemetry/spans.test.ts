import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { emailOtp, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createTestAuth } from "../../test/test-auth.ts";
import { storeForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { startOtelSdk, type OtelSdk } from "../../test/telemetry/otel-test-sdk.ts";

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
