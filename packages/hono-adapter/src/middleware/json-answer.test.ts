import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { describe, expect, it } from "vitest";
import { BASE_URL, createTestAuth } from "../../test/test-auth.ts";

// get-session answers through `jsonAnswer`: its security headers as one plain record when nothing was set before
// the route, else Hono's answer merged with what was set. Both must put the same bytes on the wire.

/** One raw HTTP/1.1 exchange: the status line and the header lines, as the socket carried them. */
async function exchange(port: number, path: string, headers: Record<string, string>, payload?: string) {
  const sent = payload === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(payload)) };
  const lines = Object.entries(sent).map(([name, value]) => `${name}: ${value}\r\n`);
  const method = payload === undefined ? "GET" : "POST";
  const request = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${lines.join("")}Connection: close\r\n\r\n${payload ?? ""}`;
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString()));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [status = "", ...fields] = head.split("\r\n");
  // Date and Connection are Node's own; everything else is the answer's.
  const own = fields.filter((line) => !/^(date|connection|keep-alive):/i.test(line));
  return { status, fields: own, body };
}

async function withServer<T>(app: Hono, run: (port: number) => Promise<T>): Promise<T> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  try {
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    return await run((server.address() as AddressInfo).port);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A host app with `auth.middleware` and the mounted sub-app behind `front` (a host middleware, or none). */
function hostApp(t: ReturnType<typeof createTestAuth>, front?: MiddlewareHandler) {
  const app = new Hono();
  if (front) app.use("*", front);
  app.use("*", t.auth.middleware);
  app.route("/auth", t.auth.app);
  return app;
}

const SECURITY_LINES = [
  "cache-control: no-store",
  "content-security-policy: frame-ancestors 'none'",
  "content-type: application/json",
  "referrer-policy: no-referrer",
  "strict-transport-security: max-age=31536000; includeSubDomains",
  "x-content-type-options: nosniff",
  "x-frame-options: DENY",
];

const sortedLower = (fields: string[]) =>
  fields.map((line) => line.replace(/^[^:]+/, (name) => name.toLowerCase())).sort();

describe("get-session's answer over a real Node socket (@hono/node-server)", () => {
  for (const cache of [false, true]) {
    it(`${cache ? "cache on" : "cache off"}: the same header lines and body whether a host middleware set a header before it or not`, async () => {
      const t = createTestAuth(cache ? { cache: {} } : {});
      const { token } = await t.signUp("ada@example.com");
      const bearer = { authorization: `Bearer ${token}` };
      const plain = hostApp(t);
      const marked = hostApp(t, async (c, next) => {
        c.header("x-host", "kept");
        await next();
      });
      for (const headers of [bearer, {}]) {
        // Twice each: with the cache on, the second answer's JSON is the cache entry's.
        for (const round of [1, 2]) {
          const a = await withServer(plain, (port) => exchange(port, "/auth/get-session", headers));
          const b = await withServer(marked, (port) => exchange(port, "/auth/get-session", headers));
          expect(a.status, `round ${round}`).toBe("HTTP/1.1 200 OK");
          expect(b.status).toBe("HTTP/1.1 200 OK");
          expect(a.body).toBe(b.body);
          const length = `content-length: ${Buffer.byteLength(a.body)}`;
          expect(sortedLower(a.fields)).toEqual([...SECURITY_LINES, length].sort());
          expect(sortedLower(b.fields)).toEqual([...SECURITY_LINES, length, "x-host: kept"].sort());
        }
      }
      const session = JSON.parse(
        (await withServer(plain, (port) => exchange(port, "/auth/get-session", bearer))).body,
      ) as { user: { email: string } };
      expect(session.user.email).toBe("ada@example.com");
    });
  }

  it("with nothing set before it, the headers leave as the plain record (in its order, not sorted by a Headers copy)", async () => {
    const t = createTestAuth({ cache: {} });
    const { token } = await t.signUp("ada@example.com");
    const { fields } = await withServer(hostApp(t), (port) =>
      exchange(port, "/auth/get-session", { authorization: `Bearer ${token}` }),
    );
    // A `Headers` object iterates sorted (cache-control first); the record starts with the content type.
    expect(fields.slice(0, 3)).toEqual([
      "content-type: application/json",
      "x-content-type-options: nosniff",
      "referrer-policy: no-referrer",
    ]);
  });

  it("what a host middleware set keeps its value: its own cache-control, Hono's cors() headers", async () => {
    const t = createTestAuth({ cache: {} });
    const { token } = await t.signUp("ada@example.com");
    const bearer = { authorization: `Bearer ${token}` };
    const own = hostApp(t, async (c, next) => {
      c.header("cache-control", "private, max-age=5");
      await next();
    });
    const a = await withServer(own, (port) => exchange(port, "/auth/get-session", bearer));
    expect(sortedLower(a.fields)).toContain("cache-control: private, max-age=5");
    expect(sortedLower(a.fields)).not.toContain("cache-control: no-store");
    const withCors = hostApp(t, cors({ origin: BASE_URL, credentials: true }));
    const b = await withServer(withCors, (port) =>
      exchange(port, "/auth/get-session", { ...bearer, origin: BASE_URL }),
    );
    expect(sortedLower(b.fields)).toEqual(
      expect.arrayContaining([
        `access-control-allow-origin: ${BASE_URL}`,
        "access-control-allow-credentials: true",
        ...SECURITY_LINES,
      ]),
    );
  });
});

describe("sign-in answers over a real Node socket (@hono/node-server)", () => {
  it("the security headers and the session cookie, whether a host middleware set a header before or not; as one record (in its order) when nothing was", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const body = JSON.stringify({ email: "ada@example.com", password: "correct horse battery" });
    const json = { "content-type": "application/json" };
    const plain = await withServer(hostApp(t), (port) => exchange(port, "/auth/sign-in/email", json, body));
    const marked = await withServer(
      hostApp(t, async (c, next) => {
        c.header("x-host", "kept");
        await next();
      }),
      (port) => exchange(port, "/auth/sign-in/email", json, body),
    );
    for (const [answer, extra] of [
      [plain, []],
      [marked, ["x-host: kept"]],
    ] as const) {
      expect(answer.status).toBe("HTTP/1.1 200 OK");
      const session = JSON.parse(answer.body) as { user: { email: string }; credentials: { token: string } };
      expect(session.user.email).toBe("ada@example.com");
      const cookie = `set-cookie: ${t.auth.core.config.cookies.name}=${session.credentials.token}; Max-Age=`;
      const lines = sortedLower(answer.fields);
      expect(lines.filter((line) => line.startsWith("set-cookie:"))).toEqual([expect.stringContaining(cookie)]);
      expect(lines.filter((line) => !line.startsWith("set-cookie:"))).toEqual(
        [...SECURITY_LINES, `content-length: ${Buffer.byteLength(answer.body)}`, ...extra].sort(),
      );
    }
    // A `Headers` object iterates sorted (cache-control first); the record starts with the content type.
    expect(plain.fields[0]).toBe("content-type: application/json");
    expect(marked.fields[0]).not.toBe("content-type: application/json");
  });
});
