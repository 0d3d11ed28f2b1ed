import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { apiKeys, jwt } from "@latchkey/core";
import { bearer, BASE_URL, cookieHeaders, createTestAuth, type TestAuth } from "../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

const url = (path: string) => `${BASE_URL}/auth${path}`;

/** The ways a client sends "nothing": no body, an empty body with and without a JSON type, an empty stream, `{}`. */
function emptyBodies(): Array<[string, () => RequestInit]> {
  return [
    ["no body", () => ({})],
    ["empty body", () => ({ body: "" })],
    ["empty JSON body", () => ({ body: "", headers: { "content-type": "application/json" } })],
    ["content-length: 0", () => ({ headers: { "content-type": "application/json", "content-length": "0" } })],
    [
      "empty chunked stream",
      () => ({ body: new ReadableStream({ start: (c) => c.close() }), duplex: "half" }) as RequestInit,
    ],
    ["{}", () => ({ body: "{}", headers: { "content-type": "application/json" } })],
  ];
}

async function post(t: TestAuth, path: string, init: RequestInit, headers: Record<string, string>): Promise<Response> {
  return t.auth.handler(
    new Request(url(path), {
      ...init,
      method: "POST",
      headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    }),
  );
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
    const form = await post(
      t,
      "/sign-out",
      { body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } },
      cookieHeaders(token),
    );
    expect(form.status).toBe(415);
    const streamed = await post(
      t,
      "/sign-out",
      { body: new Blob(["hello"]).stream(), duplex: "half" } as RequestInit,
      cookieHeaders(token),
    );
    expect(streamed.status).toBe(415);
    const broken = await post(
      t,
      "/sign-out",
      { body: "{", headers: { "content-type": "application/json" } },
      cookieHeaders(token),
    );
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
          socket.write(
            `POST /auth/sign-out HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
          );
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
