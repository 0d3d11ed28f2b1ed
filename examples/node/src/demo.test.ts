import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PASSKEYS_PLUGIN_ID } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createDemoApp } from "./app.ts";

const BASE = "http://localhost:3000";

describe("node demo", () => {
  it("installs passkeys on a host name (the relying party is the app's host), and leaves them out on an IP address", async () => {
    const { app, auth } = createDemoApp({
      secret: "x".repeat(40),
      database: memoryStore(),
      baseUrl: BASE,
      // A dev server on the same host may run the ceremony; one on another host may not.
      trustedOrigins: ["http://localhost:5173", "http://127.0.0.1:5173"],
    });
    expect(auth.core.plugins.get(PASSKEYS_PLUGIN_ID)?.options).toMatchObject({
      rpId: "localhost",
      origins: [BASE, "http://localhost:5173"],
    });
    const options = await app.request(`${BASE}/auth/passkey/authenticate/options`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE },
      body: "{}",
    });
    expect(options.status).toBe(200);
    expect((await options.json()).options).toMatchObject({ rpId: "localhost", allowCredentials: [] });
    expect(await (await app.request(`${BASE}/api`)).json()).toMatchObject({ passkeys: true });

    const onIp = "http://127.0.0.1:3000";
    const ip = createDemoApp({ secret: "x".repeat(40), database: memoryStore(), baseUrl: onIp });
    expect(ip.auth.core.plugins.get(PASSKEYS_PLUGIN_ID)).toBeNull();
    const none = await ip.app.request(`${onIp}/auth/passkey/list`);
    expect(none.status).toBe(404);
    expect(await (await ip.app.request(`${onIp}/api`)).json()).toMatchObject({ passkeys: false });
  });

  it("signs up over /auth and reads /me with the session cookie", async () => {
    const { app } = createDemoApp({ secret: "x".repeat(40), database: memoryStore(), baseUrl: BASE });
    expect((await app.request(`${BASE}/me`)).status).toBe(401);
    const up = await app.request(`${BASE}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
    });
    expect(up.status).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("latchkey.session=")).toBe(true);
    const me = await app.request(`${BASE}/me`, { headers: { cookie } });
    expect((await me.json()).user.email).toBe("ada@example.com");
  });

  it("signs in with an emailed one-time code (emailOtp is installed)", async () => {
    const { app, auth } = createDemoApp({
      secret: "x".repeat(40),
      database: memoryStore(),
      baseUrl: BASE,
      email: { sender: { send: async () => {} } },
    });
    const codes: string[] = [];
    auth.events.on("OtpGenerated", (e) => void codes.push(e.plain));
    const json = { "content-type": "application/json" };
    const send = await app.request(`${BASE}/auth/email-otp/send-verification-otp`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "otp@example.com", purpose: "sign-in" }),
    });
    expect(await send.json()).toEqual({ success: true });
    const signIn = await app.request(`${BASE}/auth/sign-in/email-otp`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "otp@example.com", otp: codes[0] }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const me = await app.request(`${BASE}/me`, { headers: { cookie } });
    expect((await me.json()).user).toMatchObject({ email: "otp@example.com", emailVerified: true });
  });

  it("issues JWTs: /auth/token and the set-auth-jwt header verify against the demo's keys", async () => {
    const { app, auth } = createDemoApp({ secret: "x".repeat(40), database: memoryStore(), baseUrl: BASE });
    const up = await app.request(`${BASE}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
    });
    const { credentials, user } = (await up.json()) as { credentials: { token: string }; user: { id: string } };
    const headers = { authorization: `Bearer ${credentials.token}` };
    const { token } = (await (await app.request(`${BASE}/auth/token`, { method: "POST", headers })).json()) as {
      token: string;
    };
    expect((await auth.api.verifyJwt(token)).sub).toBe(user.id);
    const header = (await app.request(`${BASE}/auth/get-session`, { headers })).headers.get("set-auth-jwt");
    expect((await auth.api.verifyJwt(header!)).sub).toBe(user.id);
    const jwks = (await (await app.request(`${BASE}/auth/jwks`)).json()) as {
      keys: Array<{ kid: string; alg: string }>;
    };
    expect(jwks.keys).toEqual([
      expect.objectContaining({
        alg: "EdDSA",
        kid: JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid,
      }),
    ]);
  });

  it("creates an API key with the session and calls /api/data with it", async () => {
    const { app } = createDemoApp({ secret: "x".repeat(40), database: memoryStore(), baseUrl: BASE });
    const json = { "content-type": "application/json" };
    const up = await app.request(`${BASE}/auth/sign-up/email`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
    });
    const { credentials } = await up.json();
    const created = await app.request(`${BASE}/auth/api-key/create`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${credentials.token}` },
      body: JSON.stringify({ name: "demo", permissions: { demo: ["read"] } }),
    });
    expect(created.status).toBe(200);
    const { key } = await created.json();
    expect((await app.request(`${BASE}/api/data`)).status).toBe(401);
    const data = await app.request(`${BASE}/api/data`, { headers: { "x-api-key": key } });
    expect(await data.json()).toEqual({ owner: "ada@example.com", key: "demo" });
  });

  it("starts as a process on an embedded libSQL file, prints its URLs, and keeps data across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "latchkey-demo-"));
    const env = { LATCHKEY_SECRET: "y".repeat(64), LATCHKEY_DATABASE_URL: `file:${join(dir, "demo.db")}` };
    const first = await startDemo(env);
    try {
      expect(first.output).toContain(`http://localhost:${first.port}`);
      expect(first.output).toContain("Store: sqlite");
      expect(first.output).toMatch(/\[migrate\] .*0000_initial/);
      const session = await fetch(`http://127.0.0.1:${first.port}/auth/get-session`);
      expect(await session.json()).toBeNull();
      const up = await fetch(`http://127.0.0.1:${first.port}/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
      });
      expect(up.status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await startDemo(env);
    try {
      expect(second.output).not.toMatch(/\[migrate\] .*applied 0000_initial/);
      const signIn = await fetch(`http://127.0.0.1:${second.port}/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
      });
      expect(signIn.status).toBe(200);
    } finally {
      await second.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

async function startDemo(
  extraEnv: Record<string, string>,
): Promise<{ port: number; output: string; stop(): Promise<void> }> {
  // Port 0: the demo binds a free port itself and prints it; the port is read from that line.
  const server = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./server.ts", import.meta.url))], {
    env: { ...process.env, PORT: "0", LATCHKEY_BASE_URL: "http://localhost", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
  let out = "";
  const output = await new Promise<string>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`no start line: ${out} ${err}`)), 30_000);
    server.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Store:")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    server.stderr.on("data", (d: Buffer) => void (err += d.toString()));
    server.on("exit", (code) => reject(new Error(`exited ${code}: ${out} ${err}`)));
  });
  const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(output)?.[1]);
  if (!port) throw new Error(`no port in the start line: ${output}`);
  return {
    port,
    output,
    // SIGTERM: the demo closes its server and its database connections, then exits 0.
    stop: async () => {
      server.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(out).toContain("Latchkey demo stopped");
    },
  };
}
