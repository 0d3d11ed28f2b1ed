import { describe, expect, it } from "vitest";
import {
  apiKeys,
  argon2idHasher,
  auditLog,
  emailOtp,
  jwt,
  magicLink,
  twoFactor,
  webCryptoRandom,
  type AuthEvent,
  type FullStore,
} from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth } from "./create-auth.ts";
import { storeForTestRun, testStoreKind } from "../test/test-stores.ts";
import { captureOutput, findLeaks, type KnownSecret } from "../test/secret-scanner.ts";
import { runEveryFlow } from "../test/every-flow.ts";

// Every flow of every feature, in production mode with the default console sender, on this run's store
// (memory, libSQL or PostgreSQL). Everything a log could get is captured: stdout, stderr, every event (but
// OtpGenerated, the one event meant to carry a code for custom delivery), every audit row and every error body.
// None may contain a code, token, key, password, JWT, the secret, or a hash of one.

const BASE = "https://app.example";
const SECRET = "log-secrecy-secret-0123456789abcdefghijklmnop";

interface Harness {
  call(
    method: string,
    path: string,
    init?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    init?: { body?: unknown; token?: string; headers?: Record<string, string> },
    status?: number,
  ): Promise<T>;
  codes: Array<{ identifier: string; purpose: string; plain: string }>;
  latest(identifier: string, purpose: string): string;
}

describe(`no secret reaches a log, an event, an audit row or an error body (${testStoreKind()} store, production, console sender)`, () => {
  it("sign-up to account deletion, OTP of every purpose, links, resets, email change, API keys, JWT", async () => {
    const store: FullStore = storeForTestRun() ?? memoryStore();
    const auth = createAuth({
      secret: SECRET,
      baseUrl: BASE,
      database: store,
      // environment defaults to production and email.sender to the console sender: exactly what is under test.
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      rateLimit: { enabled: false },
      plugins: [
        emailOtp({ codeLength: 10, emailChange: { enabled: true } }),
        magicLink(),
        twoFactor(),
        apiKeys({ grantablePermissions: { files: ["read"] }, usage: true }),
        jwt(),
        auditLog(),
      ],
    });
    expect(auth.core.config.environment).toBe("production");

    const secrets: KnownSecret[] = [{ label: "the secret option", value: SECRET }];
    const keep = (label: string, value: string | null | undefined) => {
      if (!value) throw new Error(`no ${label} to keep`);
      secrets.push({ label, value });
      return value;
    };
    const events: AuthEvent[] = [];
    const codes: Harness["codes"] = [];
    auth.events.onAny((e) => {
      if (e.type === "OtpGenerated") {
        codes.push({ identifier: e.identifier, purpose: e.purpose, plain: e.plain });
        keep(`${e.purpose} code/token`, e.plain);
      } else {
        events.push(e);
      }
    });
    const errorBodies: string[] = [];
    const background: Promise<unknown>[] = [];
    const executionCtx = {
      waitUntil: (p: Promise<unknown>) => void background.push(p),
      passThroughOnException: () => undefined,
    };

    const h: Harness = {
      async call(method, path, init = {}) {
        const headers: Record<string, string> = { ...init.headers };
        if (init.token) headers.authorization = `Bearer ${init.token}`;
        if (init.body !== undefined) headers["content-type"] = "application/json";
        const res = await auth.handler(
          new Request(`${BASE}/auth${path}`, {
            method,
            headers,
            body: init.body === undefined ? undefined : JSON.stringify(init.body),
          }),
          {},
          executionCtx,
        );
        const jwtHeader = res.headers.get("set-auth-jwt");
        if (jwtHeader) keep("JWT (set-auth-jwt)", jwtHeader);
        if (res.status >= 400) errorBodies.push(`${method} ${path} ${res.status} ${await res.clone().text()}`);
        return res;
      },
      async json(method, path, init = {}, status = 200) {
        const res = await h.call(method, path, init);
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBe(status);
        return JSON.parse(text);
      },
      codes,
      latest(identifier, purpose) {
        const found = [...codes].reverse().find((c) => c.identifier === identifier && c.purpose === purpose);
        if (!found) throw new Error(`no ${purpose} code for ${identifier}`);
        return found.plain;
      },
    };
    const capture = captureOutput();
    try {
      await runEveryFlow({
        store,
        json: h.json,
        keep,
        latest: h.latest,
        settle: async () => void (await Promise.all(background)),
      });
    } finally {
      capture.stop();
    }

    // Audit rows, all pages.
    const rows: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await auth.api.listAuditEvents({ limit: 100, cursor });
      rows.push(...page.events);
      cursor = page.nextCursor;
    } while (cursor);

    // The harness really saw what it scans: every kind of secret, emails on the console, events, audit rows.
    const purposes = new Set(codes.map((c) => c.purpose));
    expect([...purposes].sort()).toEqual([
      "delete-account",
      "email-change",
      "email-verification",
      "email-verification-link",
      "magic-link",
      "password-reset",
      "password-reset-link",
      "sign-in",
    ]);
    const labels = new Set(secrets.map((s) => s.label));
    for (const label of ["password", "session token", "API key", "JWT", "JWT (set-auth-jwt)", "stored password hash"])
      expect(labels, label).toContain(label);
    expect(capture.stdout.join("\n")).toContain("[latchkey email] template=otp-sign-in not delivered");
    // Outside development the default sender never logs whom it was for (issue 49 item 12).
    expect(capture.stdout.join("\n")).not.toMatch(/\[latchkey email\][^\n]*@/);
    expect(capture.stdout.join("\n")).toContain("template=delete-account");
    expect(events.length).toBeGreaterThan(30);
    // Every event is a row, but a refused verify of an unknown key (no keyId: anyone can send those; see the audit log in docs/account.md).
    const audited = events.filter((e) => !(e.type === "ApiKeyVerifyFailed" && e.keyId === undefined));
    expect(audited.length).toBe(events.length - 1);
    expect(rows.length).toBe(audited.length);
    expect(errorBodies.length).toBeGreaterThan(10);

    const leaks = findLeaks(
      {
        stdout: capture.stdout.join("\n"),
        stderr: capture.stderr.join("\n"),
        events: JSON.stringify(events),
        audit: JSON.stringify(rows),
        errorBodies: errorBodies.join("\n"),
      },
      secrets,
    );
    expect(leaks).toEqual([]);
  }, 60_000);
});

describe("development mode is the one place the console prints an email", () => {
  it("prints the whole email with the code, and its first line says it is development mode", async () => {
    const auth = createAuth({
      secret: SECRET,
      environment: "development",
      database: storeForTestRun() ?? memoryStore(),
      plugins: [emailOtp()],
    });
    let code = "";
    auth.events.on("OtpGenerated", (e) => void (code = e.plain));
    const background: Promise<unknown>[] = [];
    const executionCtx = {
      waitUntil: (p: Promise<unknown>) => void background.push(p),
      passThroughOnException: () => undefined,
    };
    const capture = captureOutput();
    try {
      const res = await auth.handler(
        new Request("http://localhost:3000/auth/email-otp/send-verification-otp", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "dev@example.com", purpose: "sign-in" }),
        }),
        {},
        executionCtx,
      );
      expect(res.status).toBe(200);
      await Promise.all(background);
    } finally {
      capture.stop();
    }
    const printed = capture.stdout.find((l) => l.includes("to=dev@example.com")) ?? "";
    expect(printed.split("\n")[0]).toMatch(/^\[latchkey email\] development mode: printing the whole email/);
    expect(code).toMatch(/^\d{6}$/);
    expect(printed).toContain(code);
  });
});
