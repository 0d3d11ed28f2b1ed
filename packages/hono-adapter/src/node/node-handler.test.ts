import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LogFields, Logger } from "@latchkey/core";
import { MiB, streamUpload } from "@latchkey/test-support/upload";
import { createTestAuth, type TestAuth } from "../../test/test-auth.ts";
import { startOtelSdk, type OtelSdk } from "../../test/telemetry/otel-test-sdk.ts";
import { toNodeHandler } from "./node-handler.ts";

// `toNodeHandler`, the bridge Express and Fastify serve Latchkey through, over real sockets. It used to read the
// whole body into memory before Latchkey's 64 KiB limit applied: one 300 MiB POST took an Express app from 126 to
// 1,033 MiB. The body now streams through the limit as it arrives.

const PASSWORD = "correct horse battery";

interface Line {
  level: keyof Logger;
  message: string;
}

function captureLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: keyof Logger) => (_fields: LogFields, message: string) => void lines.push({ level, message });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A plain Node server with the bridge at /auth, and what reached `next` (Express's error path). */
async function bridgeServer(t: TestAuth): Promise<{ server: Server; base: string; nextErrors: unknown[] }> {
  const handler = toNodeHandler(t.auth);
  const nextErrors: unknown[] = [];
  const server = createServer((req, res) => void handler(req, res, (error) => nextErrors.push(error)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, nextErrors };
}

describe("a 300 MiB upload through the Node bridge, in a child process of its own (built packages)", () => {
  let child: ChildProcess;
  let base = "";
  const memory = async (): Promise<{ peak: number; current: number }> => {
    child.send("memory");
    const [answer] = (await once(child, "message")) as [{ peak: number; current: number }];
    return answer;
  };
  beforeAll(async () => {
    child = fork(fileURLToPath(new URL("../../test/node/bridge-server.mjs", import.meta.url)), {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ port }] = (await once(child, "message")) as [{ port: number }];
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    child.disconnect();
    if (child.exitCode === null) await once(child, "exit");
  });

  it("is refused by its Content-Length and when chunked, at once, without the server's memory growing by it", async () => {
    // Warm-up: the routes, the parser and the hasher have run once before the peak is taken.
    const warm = await fetch(`${base}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "warm@example.com", password: PASSWORD }),
    });
    expect(warm.status).toBe(200);
    const before = await memory();

    for (const declareLength of [true, false]) {
      const answer = await streamUpload(`${base}/auth/sign-in/email`, 300 * MiB, { declareLength });
      expect(answer.status, answer.body).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      // The answer came while the client was still sending: what it had written by then is what the connection's
      // buffers hold (and, on a loaded machine, what it wrote before the answer was read), far from the 300 MiB body.
      expect(answer.sent, `declared length: ${declareLength}`).toBeLessThan(96 * MiB);
    }
    const after = await memory();
    // The child's peak resident set: a buffered body would add at least its 300 MiB.
    expect(after.peak - before.peak, `peak ${before.peak / MiB} -> ${after.peak / MiB} MiB`).toBeLessThan(48 * MiB);

    // The server still serves: a sign-in on a new connection.
    const again = await fetch(`${base}/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "warm@example.com", password: PASSWORD }),
    });
    expect(again.status).toBe(200);
  });
});

describe("the Node bridge reads bodies as they arrive", () => {
  let t: TestAuth;
  let bridge: Awaited<ReturnType<typeof bridgeServer>>;
  let logger: ReturnType<typeof captureLogger>;
  beforeEach(async () => {
    logger = captureLogger();
    t = createTestAuth({ logger });
    bridge = await bridgeServer(t);
  });
  afterEach(async () => {
    bridge.server.closeAllConnections();
    await new Promise((resolve) => bridge.server.close(resolve));
  });

  it("a body with a Content-Length and a chunked one each sign up; the connection is kept alive after a read body", async () => {
    const sized = await fetch(`${bridge.base}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "sized@example.com", password: PASSWORD }),
    });
    expect(sized.status).toBe(200);
    const body = new TextEncoder().encode(JSON.stringify({ email: "chunked@example.com", password: PASSWORD }));
    const chunked = await fetch(`${bridge.base}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(body.subarray(0, 10));
          controller.enqueue(body.subarray(10));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(200);
    expect((await t.store.users.findByEmail("chunked@example.com"))?.email).toBe("chunked@example.com");
    expect(bridge.nextErrors).toEqual([]);
  });

  it("a body just over the limit is 413 and the connection then serves the next request", async () => {
    const answer = await streamUpload(`${bridge.base}/auth/sign-in/email`, 64 * 1024 + 1, { declareLength: false });
    expect(answer.status).toBe(413);
    const next = await fetch(`${bridge.base}/auth/get-session`);
    expect(next.status).toBe(200);
  });
});

describe("a client that abandons an upload (issue 49, item 8)", () => {
  let sdk: OtelSdk;
  beforeAll(() => {
    sdk = startOtelSdk();
  });
  afterAll(() => sdk.stop());

  it("is not a server error: no error line, no 500 in the metrics, nothing handed to `next`", async () => {
    const logger = captureLogger();
    const t = createTestAuth({ logger });
    const bridge = await bridgeServer(t);
    await sdk.reset();
    const answered: number[] = [];
    let entered = 0;
    const handler = t.auth.handler;
    t.auth.handler = async (...args) => {
      entered++;
      const response = await handler(...args);
      answered.push(response.status);
      return response;
    };
    try {
      // Half of a declared body, then the client goes away.
      const req = request(`${bridge.base}/auth/sign-in/email`, {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": "1000" },
      });
      req.on("error", () => undefined);
      req.write('{"email":"ada@example.com","password":"');
      // Gone once the request is being served, its body half sent.
      await expect.poll(() => entered).toBe(1);
      req.destroy();
      await expect.poll(() => answered).toEqual([400]);
      expect(logger.lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
      expect(bridge.nextErrors).toEqual([]);
      const durations = (await sdk.points()).filter((p) => p.name === "latchkey.request.duration");
      expect(durations.map((p) => p.attributes["http.response.status_code"])).toEqual([400]);
    } finally {
      bridge.server.closeAllConnections();
      await new Promise((resolve) => bridge.server.close(resolve));
    }
  });
});
