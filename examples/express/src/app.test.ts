import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createApp, createExampleAuth } from "./app.ts";

// Express 5 over real HTTP: Latchkey's routes at /auth through the Node request listener, the app's own JSON
// routes beside them, and a router guarded by requireUser (cookie or Bearer).
let server: Server;
let base = "";
let auth: ReturnType<typeof createExampleAuth>;

beforeAll(async () => {
  // Port 0: the kernel picks the port; the auth's baseUrl is built from it before the first request.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  auth = createExampleAuth({ secret: "e".repeat(64), baseUrl: base });
  server.on("request", createApp(auth));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await auth.close();
});

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("Express 5 with Latchkey at /auth", () => {
  it("signs up at /auth, then the guarded router sees the user by cookie and by Bearer; the session is in the store", async () => {
    const up = await fetch(
      `${base}/auth/sign-up/email`,
      json({ email: "ada@express.example", password: "correct horse battery" }),
    );
    expect(up.status, await up.clone().text()).toBe(200);
    const { credentials, user } = (await up.json()) as { credentials: { token: string }; user: { id: string } };
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("latchkey.session=")).toBe(true);

    const anonymous = await fetch(`${base}/account/me`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ code: "INVALID_CREDENTIALS", message: "Sign in first" });

    const byCookie = await fetch(`${base}/account/me`, { headers: { cookie } });
    const me = (await byCookie.json()) as { email: string; sessionId: string };
    expect(me.email).toBe("ada@express.example");
    const byBearer = await fetch(`${base}/account/me`, { headers: { authorization: `Bearer ${credentials.token}` } });
    expect(await byBearer.json()).toEqual(me);
    // The store holds that session, for that user.
    const hashed = await auth.core.ctx.store.sessions.findByTokenHash(hashSecret(credentials.token));
    expect(hashed).toMatchObject({ session: { id: me.sessionId, userId: user.id } });
  });

  it("the app's own routes keep working next to /auth, and unknown auth paths answer Latchkey's JSON 404", async () => {
    expect(await (await fetch(`${base}/`)).json()).toEqual({ app: "express example", auth: "/auth" });
    const missing = await fetch(`${base}/auth/no-such-endpoint`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a cookie request from an untrusted origin is refused (CSRF), the same one from the app's origin passes", async () => {
    const up = await fetch(
      `${base}/auth/sign-up/email`,
      json({ email: "csrf@express.example", password: "correct horse battery" }),
    );
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    const evil = await fetch(`${base}/auth/sign-out`, json({}, { cookie, origin: "https://evil.example" }));
    expect(evil.status).toBe(403);
    const own = await fetch(`${base}/auth/sign-out`, json({}, { cookie, origin: base }));
    expect(own.status).toBe(200);
    expect((await fetch(`${base}/account/me`, { headers: { cookie } })).status).toBe(401);
  });

  it("signs in with an emailed code (the OTP plugin) through the listener", async () => {
    const codes = new Map<string, string>();
    const off = auth.events.on("OtpGenerated", (e) => void codes.set(e.identifier, e.plain));
    try {
      const email = "otp@express.example";
      const sent = await fetch(`${base}/auth/email-otp/send-verification-otp`, json({ email, purpose: "sign-in" }));
      expect(sent.status).toBe(200);
      const res = await fetch(`${base}/auth/sign-in/email-otp`, json({ email, otp: codes.get(email) }));
      expect(res.status, await res.clone().text()).toBe(200);
      const token = ((await res.json()) as { credentials: { token: string } }).credentials.token;
      const me = await fetch(`${base}/account/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await me.json()) as { email: string }).email).toBe(email);
    } finally {
      off();
    }
  });
});
