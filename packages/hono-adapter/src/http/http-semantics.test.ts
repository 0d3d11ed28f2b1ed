import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import { bearer, BASE_URL, cookieHeaders, createTestAuth, type TestAuth } from "../testing/test-auth.ts";

// Each rule of the HTTP layer; this file runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

const url = (path: string) => `${BASE_URL}/auth${path}`;

/** The ways a client sends "nothing": no body, an empty body with and without a JSON type, an empty stream, `{}`. */
function emptyBodies(): Array<[string, () => RequestInit]> {
  return [
    ["no body", () => ({})],
    ["empty body", () => ({ body: "" })],
    ["empty JSON body", () => ({ body: "", headers: { "content-type": "application/json" } })],
    ["content-length: 0", () => ({ headers: { "content-type": "application/json", "content-length": "0" } })],
    ["empty chunked stream", () => ({ body: new ReadableStream({ start: (c) => c.close() }), duplex: "half" } as RequestInit)],
    ["{}", () => ({ body: "{}", headers: { "content-type": "application/json" } })],
  ];
}

async function post(t: TestAuth, path: string, init: RequestInit, headers: Record<string, string>): Promise<Response> {
  return t.auth.handler(new Request(url(path), { ...init, method: "POST", headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } }));
}

describe("POST endpoints without fields accept a missing body, an empty body and {} alike", () => {
  it("sign-out, delete-account/request, api-key/delete-all-expired and POST /token", async () => {
    const t = createTestAuth({ plugins: [apiKeys(), jwt()], rateLimit: { enabled: false } });
    for (const [label, init] of emptyBodies()) {
      const { token } = await t.signUp(`nobody-${label.replace(/\W/g, "")}@example.com`);
      for (const path of ["/token", "/api-key/delete-all-expired", "/delete-account/request"]) {
        const res = await post(t, path, init(), bearer(token));
        expect(res.status, `${label} ${path}: ${await res.clone().text()}`).toBe(200);
      }
      const out = await post(t, "/sign-out", init(), cookieHeaders(token));
      expect(out.status, `${label} /sign-out`).toBe(200);
      expect(await t.auth.api.getSession(token)).toBeNull();
    }
  });

  it("a body that is present is still JSON only (415) and must parse (400)", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const text = await post(t, "/sign-out", { body: "hello" }, cookieHeaders(token));
    expect(text.status).toBe(415);
    expect((await text.json()).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const form = await post(t, "/sign-out", { body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } }, cookieHeaders(token));
    expect(form.status).toBe(415);
    const streamed = await post(t, "/sign-out", { body: new Blob(["hello"]).stream(), duplex: "half" } as RequestInit, cookieHeaders(token));
    expect(streamed.status).toBe(415);
    const broken = await post(t, "/sign-out", { body: "{", headers: { "content-type": "application/json" } }, cookieHeaders(token));
    expect(broken.status).toBe(400);
    expect((await broken.json()).code).toBe("INVALID_REQUEST");
    // None of these signed the user out.
    expect((await t.auth.api.getSession(token))?.user.email).toBe("ada@example.com");
  });

  it("an endpoint with fields given an empty body names every missing field (not 'malformed JSON')", async () => {
    const t = createTestAuth();
    const res = await post(t, "/sign-up/email", { body: "", headers: { "content-type": "application/json" } }, {});
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("INVALID_REQUEST");
    expect(body.details.map((d: { path: string }) => d.path).sort()).toEqual(["email", "password"]);
  });

  it("bug: `curl -X POST .../sign-out` (no Content-Length, no body) over a real Node socket is 200, not 415", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("curl@example.com");
    const host = new Hono();
    host.route("/auth", t.auth.app);
    const server = serve({ fetch: host.fetch, port: 0, hostname: "127.0.0.1" });
    try {
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.write(`POST /auth/sign-out HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
        });
        let data = "";
        socket.on("data", (chunk) => (data += chunk.toString()));
        socket.on("end", () => resolve(data));
        socket.on("error", reject);
      });
      expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      expect(raw).toContain('{"success":true}');
      expect(await t.auth.api.getSession(token)).toBeNull();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("CSRF: a cookie request without Origin or Referer", () => {
  it("is 403 MISSING_ORIGIN with its own message; an untrusted one stays INVALID_ORIGIN", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const missing = await t.request("POST", "/sign-out", { headers: cookieHeaders(token, null) });
    expect(missing.status).toBe(403);
    const missingBody = await missing.json();
    expect(missingBody.code).toBe("MISSING_ORIGIN");
    expect(missingBody.message).toMatch(/Origin/);
    const foreign = await t.request("POST", "/sign-out", { headers: cookieHeaders(token, "https://evil.example") });
    const foreignBody = await foreign.json();
    expect(foreignBody.code).toBe("INVALID_ORIGIN");
    expect(foreignBody.message).not.toBe(missingBody.message);
    expect((await t.auth.api.getSession(token))?.user.email).toBe("ada@example.com");
  });
});

describe("a known path with the wrong method", () => {
  it("is 405 with Allow (sub-app mounted by a host, and the standalone handler); unknown paths stay 404", async () => {
    const t = createTestAuth({ plugins: [jwt(), emailOtp()] });
    const host = new Hono();
    host.route("/auth", t.auth.app);
    const cases: Array<[string, string, string]> = [
      ["GET", "/sign-in/email", "POST"],
      ["DELETE", "/sign-out", "POST"],
      ["POST", "/get-session", "GET, HEAD"],
      ["PUT", "/token", "GET, HEAD, POST"],
      ["GET", "/email-otp/send-verification-otp", "POST"],
      ["POST", "/user", "PATCH"],
    ];
    for (const [method, path, allow] of cases) {
      for (const [name, fetcher] of [["host", (r: Request) => host.fetch(r)], ["handler", (r: Request) => t.auth.handler(r)]] as const) {
        const res = await fetcher(new Request(url(path), { method }));
        expect(res.status, `${name} ${method} ${path}`).toBe(405);
        expect(res.headers.get("allow")).toBe(allow);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        const body = await res.json();
        expect(body.code).toBe("METHOD_NOT_ALLOWED");
        expect(body.message).toContain(allow.split(", ")[0]);
      }
    }
    const unknown = await t.auth.handler(new Request(url("/sign-in/emial"), { method: "GET" }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("allow")).toBeNull();
    // A disabled feature's path is unknown, not a 405.
    expect((await t.auth.handler(new Request(url("/api-key/list"), { method: "POST" }))).status).toBe(404);
  });

  it("the OpenAPI document lists 405 and marks the no-field bodies optional", async () => {
    const t = createTestAuth({ plugins: [apiKeys(), jwt()] });
    const doc = await (await t.request("GET", "/openapi.json")).json();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, op] of Object.entries(item)) expect(op.responses["405"], `${method} ${path}`).toBeDefined();
    }
    for (const path of ["/sign-out", "/delete-account/request", "/api-key/delete-all-expired", "/token"]) {
      const body = doc.paths[path].post.requestBody;
      expect(body?.required, path).toBe(false);
      expect(body.content["application/json"]).toBeDefined();
    }
    expect(doc.paths["/sign-in/email"].post.requestBody.required).toBe(true);
  });
});

describe("validation details always name the field", () => {
  it("sign-in/email, sign-up/email, send-verification-otp and non-object bodies", async () => {
    const t = createTestAuth({ plugins: [emailOtp()], rateLimit: { enabled: false } });
    const cases: Array<[string, unknown, string[]]> = [
      ["/sign-in/email", {}, ["email", "password"]],
      ["/sign-in/email", { email: "ada@example.com" }, ["password"]],
      ["/sign-in/email", { password: "correct horse battery" }, ["email"]],
      ["/sign-up/email", {}, ["email", "password"]],
      ["/email-otp/send-verification-otp", { email: "ada@example.com" }, ["purpose"]],
      ["/email-otp/send-verification-otp", { email: "ada@example.com", purpose: "sign-up" }, ["purpose"]],
      ["/sign-in/email", [], ["body"]],
      ["/sign-in/email", "text", ["body"]],
    ];
    for (const [path, body, paths] of cases) {
      const res = await t.request("POST", path, { body: JSON.stringify(body) });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const json = await res.json();
      expect(json.code).toBe("INVALID_REQUEST");
      const named = (json.details as Array<{ path: string }>).map((d) => d.path);
      expect(named.every((p) => p.length > 0), JSON.stringify(json.details)).toBe(true);
      expect([...new Set(named)].sort(), `${path} ${JSON.stringify(body)}`).toEqual(paths);
    }
    // Username sign-in still works through the same schema.
    await t.signUp("ada@example.com", "correct horse battery", { username: "ada" });
    expect((await t.request("POST", "/sign-in/email", { body: { username: "ada", password: "correct horse battery" } })).status).toBe(200);
  });
});

describe("an OTP submitted after its row is gone tells the person to request a new code", () => {
  it("after TOO_MANY_ATTEMPTS, after use, and (identically) for an email that was never sent one", async () => {
    const t = createTestAuth({ plugins: [emailOtp({ maxAttempts: 2 })], rateLimit: { enabled: false } });
    const codes: Record<string, string> = {};
    t.auth.events.on("OtpGenerated", (e) => void (codes[e.identifier] = e.plain));
    const send = (email: string) => t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } });
    const signIn = (email: string, otp: string) => t.request("POST", "/sign-in/email-otp", { body: { email, otp } });
    await send("ada@example.com");
    const right = codes["ada@example.com"] as string;
    const wrong = right.replace(/^./, (d) => String((Number(d) + 1) % 10));
    expect((await signIn("ada@example.com", wrong)).status).toBe(400);
    const destroyed = await signIn("ada@example.com", wrong);
    expect((await destroyed.json()).code).toBe("TOO_MANY_ATTEMPTS");
    expect(await t.store.verifications.findByIdentifier("otp:sign-in:ada@example.com")).toBeNull();
    const late = await signIn("ada@example.com", right);
    expect(late.status).toBe(400);
    const lateBody = await late.json();
    expect(lateBody).toEqual({ code: "INVALID_OTP", message: expect.stringMatching(/request a new code/) });

    await send("bob@example.com");
    const bobCode = codes["bob@example.com"] as string;
    expect((await signIn("bob@example.com", bobCode)).status).toBe(200);
    const replay = await signIn("bob@example.com", bobCode);
    expect(await replay.json()).toEqual(lateBody);

    // Unknown address (no row ever): the very same answer, so the message reveals nothing about who got a code.
    expect(await (await signIn("nobody@example.com", "123456")).json()).toEqual(lateBody);
  });
});

describe("per-IP budget and the 429 message", () => {
  it("requests the schema rejects spend no budget; the 429 says when to retry and matches Retry-After", async () => {
    const t = createTestAuth({ rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 2 } } } });
    const ip = "203.0.113.77";
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com" }, ip });
      expect(res.status).toBe(400);
    }
    expect((await t.request("POST", "/sign-in/email", { body: "x", ip, headers: { "content-type": "text/plain" } })).status).toBe(415);
    for (let i = 0; i < 2; i++) {
      expect((await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "wrong password!" }, ip })).status).toBe(401);
    }
    const limited = await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "wrong password!" }, ip });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    const body = await limited.json();
    expect(body.code).toBe("RATE_LIMITED");
    expect(body.message).toBe(`Too many requests from this address; try again in ${retryAfter} seconds`);
  });
});

describe("event listeners may return anything", () => {
  it("bug: `(e) => list.push(e)` (returns a number) no longer fails the request; a returned promise is awaited", async () => {
    const t = createTestAuth();
    const seen: unknown[] = [];
    let settled = false;
    t.auth.events.on("UserSignedUp", (e) => seen.push(e));
    t.auth.events.on("UserSignedUp", () => ({ then: (resolve: () => void) => setTimeout(() => ((settled = true), resolve()), 5) }));
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      await t.signUp("ada@example.com");
    } finally {
      console.error = original;
    }
    expect(seen).toHaveLength(1);
    expect(settled).toBe(true);
    expect(errors).toEqual([]);
  });
});
