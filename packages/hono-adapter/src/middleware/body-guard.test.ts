import { connect } from "node:net";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { BASE_URL, createTestAuth } from "../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
import { bodyGuard } from "./body-guard.ts";

/** The guard in front of a route that reports what it sees of the body and of `c.req.raw`. */
function echoApp() {
  const app = new Hono();
  const handed = new WeakSet<Request>();
  app.use("*", async (c, next) => {
    handed.add(c.req.raw);
    await next();
  });
  app.use("*", bodyGuard());
  app.post("/echo", async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return c.json({
      sameRequest: handed.has(c.req.raw),
      json: await c.req.json(),
      text: await c.req.text(),
      bytes: [...bytes],
    });
  });
  return app;
}

describe("the body guard hands the counted bytes on without a second Request", () => {
  it("a JSON body: the route parses it, reads its exact bytes and text, and c.req.raw is the request handed over", async () => {
    const payload = '{"name":"Ada é","n":1}';
    const res = await echoApp().request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen.sameRequest).toBe(true);
    expect(seen.json).toEqual({ name: "Ada é", n: 1 });
    expect(seen.text).toBe(payload);
    expect(seen.bytes).toEqual([...new TextEncoder().encode(payload)]);
  });

  it("decodes like Request.text(): a leading BOM dropped, invalid UTF-8 replaced, the raw bytes kept as sent", async () => {
    const sent = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('{"a":"'),
      0xff,
      ...new TextEncoder().encode('"}'),
    ]);
    const res = await echoApp().request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: sent,
    });
    const seen = await res.json();
    expect(seen.text).toBe(await new Request(BASE_URL, { method: "POST", body: sent }).text());
    expect(seen.json).toEqual({ a: "\ufffd" });
    expect(seen.bytes).toEqual([...sent]);
  });

  it("a chunked body (no Content-Length) is counted, typed at its first bytes and handed on whole", async () => {
    const parts = ['{"chunks":', '"one', 'two"}'].map((p) => new TextEncoder().encode(p));
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(0));
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
    const app = echoApp();
    const ok = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream(),
      duplex: "half",
    } as RequestInit);
    expect((await ok.json()).json).toEqual({ chunks: "onetwo" });
    const typed = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: stream(),
      duplex: "half",
    } as RequestInit);
    expect(typed.status).toBe(415);
    expect((await typed.json()).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("a 300 MiB body handed over as a web stream (SvelteKit, Astro, Next.js, Bun, Deno, Workers)", () => {
  it("is read no further than the limit: by its declared length nothing is read, chunked one chunk past 64 KiB; the stream is cancelled", async () => {
    const t = createTestAuth();
    const chunk = new Uint8Array(16 * 1024).fill(0x61);
    /** A body made as it is pulled, counting what was pulled. */
    const generated = () => {
      const seen = { pulled: 0, cancelled: false };
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (seen.pulled >= 300 * 1024 * 1024) return controller.close();
            seen.pulled += chunk.byteLength;
            controller.enqueue(chunk);
          },
          cancel() {
            seen.cancelled = true;
          },
        },
        { highWaterMark: 0 },
      );
      return { body, seen };
    };
    const send = (body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
      t.auth.handler(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
          duplex: "half",
        } as RequestInit),
      );
    const declared = generated();
    const refused = await send(declared.body, { "content-length": String(300 * 1024 * 1024) });
    expect(refused.status).toBe(413);
    expect(declared.seen.pulled).toBe(0);
    const chunked = generated();
    const cut = await send(chunked.body, {});
    expect(cut.status).toBe(413);
    expect(chunked.seen.pulled).toBe(64 * 1024 + chunk.byteLength);
    expect(chunked.seen.cancelled).toBe(true);
  });
});

describe("over a real Node socket (@hono/node-server)", () => {
  async function send(port: number, request: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(request));
      let data = "";
      socket.on("data", (chunk) => (data += chunk.toString()));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
  }

  it("sign-up with a Content-Length body and with a chunked one creates each user; a host route behind auth.middleware still reads its own body", async () => {
    const t = createTestAuth();
    const host = new Hono();
    host.use("*", t.auth.middleware);
    host.route("/auth", t.auth.app);
    host.post("/host/echo", async (c) => c.json({ got: await c.req.json() }));
    const server = serve({ fetch: host.fetch, port: 0, hostname: "127.0.0.1" });
    try {
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      const { port } = server.address() as AddressInfo;
      const head = (path: string, extra: string) =>
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}\r\n`;
      const sized = JSON.stringify({ email: "sized@example.com", password: PASSWORD });
      const one = await send(
        port,
        `${head("/auth/sign-up/email", `Content-Length: ${Buffer.byteLength(sized)}\r\n`)}${sized}`,
      );
      expect(one.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      const chunked = JSON.stringify({ email: "chunked@example.com", password: PASSWORD });
      const [a, b] = [chunked.slice(0, 10), chunked.slice(10)];
      const body = `${a.length.toString(16)}\r\n${a}\r\n${b.length.toString(16)}\r\n${b}\r\n0\r\n\r\n`;
      const two = await send(port, `${head("/auth/sign-up/email", "Transfer-Encoding: chunked\r\n")}${body}`);
      expect(two.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      expect((await t.store.users.findByEmail("sized@example.com"))?.email).toBe("sized@example.com");
      expect((await t.store.users.findByEmail("chunked@example.com"))?.email).toBe("chunked@example.com");
      const echo = JSON.stringify({ host: "body" });
      const own = await send(port, `${head("/host/echo", `Content-Length: ${echo.length}\r\n`)}${echo}`);
      expect(own.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      expect(own).toContain('{"got":{"host":"body"}}');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a body with a Content-Length is read straight from Node's stream: no web stream is made for it", async () => {
    const server = serve({ fetch: echoApp().fetch, port: 0, hostname: "127.0.0.1" });
    const toWeb = vi.spyOn(Readable, "toWeb");
    try {
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      const { port } = server.address() as AddressInfo;
      const payload = JSON.stringify({ straight: "from the socket" });
      const answer = await send(
        port,
        `POST /echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`,
      );
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      const seen = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(seen).toMatchObject({ sameRequest: true, json: { straight: "from the socket" }, text: payload });
      expect(toWeb).not.toHaveBeenCalled();
      const big = await send(
        port,
        `POST /echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 70000\r\n\r\n{}`,
      );
      expect(big.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    } finally {
      toWeb.mockRestore();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  // Issue 49, item 8: `latchkey serve` logged an error-level "unexpected error" and counted a 500 for it.
  it("a client that goes away mid-upload is a 400 for the metrics, with nothing logged, by its length or chunked", async () => {
    const lines: string[] = [];
    const at = (level: string) => (_fields: unknown, message: string) => void lines.push(`${level} ${message}`);
    const t = createTestAuth({
      logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
    });
    const answered: number[] = [];
    let entered = 0;
    const server = serve({
      fetch: async (request, env) => {
        entered++;
        const response = await t.auth.handler(request, env);
        answered.push(response.status);
        return response;
      },
      port: 0,
      hostname: "127.0.0.1",
    });
    try {
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      const { port } = server.address() as AddressInfo;
      const head = `POST /auth/sign-in/email HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`;
      for (const [framing, part] of [
        ["Content-Length: 1000\r\n", '{"email":"ada@example.com","password":"'],
        ["Transfer-Encoding: chunked\r\n", '20\r\n{"email":"ada@example.com","pass\r\n'],
      ] as const) {
        const before = entered;
        const socket = connect(port, "127.0.0.1");
        socket.on("error", () => undefined);
        await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
        socket.write(`${head}${framing}\r\n${part}`);
        // Gone once the request is being served, its body half sent.
        await expect.poll(() => entered).toBe(before + 1);
        socket.destroy();
      }
      await expect.poll(() => answered).toEqual([400, 400]);
      expect(lines).toEqual([]);
    } finally {
      (server as Server).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
