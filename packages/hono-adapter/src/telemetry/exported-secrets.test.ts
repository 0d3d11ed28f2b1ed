import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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
import { storeForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { findLeaks, type KnownSecret } from "../../test/secret-scanner.ts";
import { runEveryFlow } from "../../test/every-flow.ts";
import { startOtelSdk, type OtelSdk } from "../../test/telemetry/otel-test-sdk.ts";

// The app's OpenTelemetry SDK (in-memory exporters) on this run's store (memory, libSQL or PostgreSQL), every span
// and data point of a whole journey scanned for the secrets and personal data it used.
let sdk: OtelSdk;
beforeAll(() => {
  sdk = startOtelSdk();
});
afterAll(() => sdk.stop());
beforeEach(() => sdk.reset());

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
