import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthConfigError, argon2idHasher, webCryptoRandom, type EmailMessage } from "@latchkey/core";
import { createTestClock } from "@latchkey/core/internal";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { resendEmailSender } from "./resend-sender.ts";

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

// A stand-in for the Resend API on loopback: records each request and answers like Resend would.
let server: Server;
let baseUrl: string;
let received: Received[] = [];
let reply: { status: number; body: unknown } = { status: 200, body: { id: "email_0001" } };
let onRequest: (() => void) | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: raw ? JSON.parse(raw) : {},
      });
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
      onRequest?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  received = [];
  reply = { status: 200, body: { id: "email_0001" } };
  onRequest = null;
});

const MESSAGE: EmailMessage = {
  to: "ada@example.com",
  from: "Acme <auth@acme.example>",
  subject: "Verify your email",
  text: "Open https://app.example/verify-email?token=abc",
  html: '<p><a href="https://app.example/verify-email?token=abc">Verify</a></p>',
  template: "verification",
};

describe("resendEmailSender through the real resend package", () => {
  it("POSTs /emails with the API key as Bearer and from/to/subject/html/text as JSON", async () => {
    const sender = resendEmailSender({ apiKey: "re_test_123", baseUrl });
    await sender.send(MESSAGE);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/emails");
    expect(request!.headers.authorization).toBe("Bearer re_test_123");
    expect(request!.headers["content-type"]).toContain("application/json");
    expect(request!.headers["user-agent"]).toBe("latchkey-resend-sender/0.1.0");
    expect(request!.body).toMatchObject({
      from: MESSAGE.from,
      to: MESSAGE.to,
      subject: MESSAGE.subject,
      html: MESSAGE.html,
      text: MESSAGE.text,
      tags: [{ name: "latchkey_template", value: "verification" }],
    });
  });

  it("throws on an API error, naming Resend's error but not the message body", async () => {
    reply = { status: 422, body: { statusCode: 422, name: "validation_error", message: "Invalid `from` field." } };
    const sender = resendEmailSender({ apiKey: "re_test_123", baseUrl });
    const error = await sender.send(MESSAGE).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain("validation_error");
    expect(error!.message).toContain("422");
    expect(error!.message).not.toContain("token=abc");
  });

  it("throws when the API cannot be reached (a closed loopback port)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sender = resendEmailSender({ apiKey: "re_test_123", baseUrl: `http://127.0.0.1:${port}` });
    await expect(sender.send(MESSAGE)).rejects.toThrow(/application_error/);
  });

  it("validates its options and never falls back to RESEND_* environment variables", async () => {
    const saved = { key: process.env.RESEND_API_KEY, url: process.env.RESEND_BASE_URL };
    process.env.RESEND_API_KEY = "re_from_env";
    process.env.RESEND_BASE_URL = "http://127.0.0.1:1";
    try {
      expect(() => resendEmailSender({ apiKey: "" })).toThrow(AuthConfigError);
      expect(() => resendEmailSender({})).toThrow(/resendEmailSender.apiKey/);
      expect(() => resendEmailSender({ apiKey: "re_x", baseUrl: "not a url" })).toThrow(/resendEmailSender.baseUrl/);
      await resendEmailSender({ apiKey: "re_explicit", baseUrl }).send(MESSAGE);
      expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer re_explicit"]);
    } finally {
      for (const [name, value] of [
        ["RESEND_API_KEY", saved.key],
        ["RESEND_BASE_URL", saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("uses an injected client instead of building one", async () => {
    const calls: unknown[] = [];
    const sender = resendEmailSender({
      client: {
        emails: { send: async (payload) => (calls.push(payload), { data: { id: "x" }, error: null, headers: null }) },
      },
    });
    await sender.send(MESSAGE);
    expect(calls).toHaveLength(1);
    expect(received).toHaveLength(0);
  });

  it("delivers a real verification email from createAuth end to end (the link carries the token)", async () => {
    const auth = createAuth({
      secret: "test-secret-0123456789abcdefghijklmnopqrstuvwxyz",
      database: memoryStore(),
      baseUrl: "https://app.example",
      clock: createTestClock(),
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      getClientIp: () => "192.0.2.1",
      captureOtp: true,
      email: { sender: resendEmailSender({ apiKey: "re_live_abc", baseUrl }), from: "auth@app.example" },
    });
    await auth.api.createUser({ email: "ada@example.com", password: "correct horse battery" });
    const delivered = new Promise<void>((resolve) => (onRequest = resolve));
    const res = await auth.handler(
      new Request("https://app.example/auth/send-verification-email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com" }),
      }),
    );
    expect(res.status).toBe(200);
    await delivered;
    const token = auth.getOtp("ada@example.com")!;
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBe("Bearer re_live_abc");
    const body = received[0]!.body as { from: string; to: string; subject: string; text: string; html: string };
    expect(body).toMatchObject({ from: "auth@app.example", to: "ada@example.com", subject: "Verify your email" });
    expect(body.text).toContain(`https://app.example/verify-email?token=${token}&email=ada%40example.com`);
    expect(body.html).toContain(`href="https://app.example/verify-email?token=${token}&amp;email=ada%40example.com"`);
  });
});
