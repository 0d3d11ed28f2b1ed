import { hashSecret } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { MiB, streamUpload } from "./upload.ts";

/**
 * The parts of the mounted auth the journey reads (structural: test-support cannot depend on the adapter, whose
 * own tests depend on test-support).
 */
export interface JourneyAuth {
  core: { ctx: { store: { sessions: { findByTokenHash(hash: string): Promise<unknown> } } } };
  events: { on(name: "OtpGenerated", listener: (event: { identifier: string; plain: string }) => void): () => void };
}

/** What a host app under test exposes: where it listens and the auth it mounted at `/auth`. */
export interface HostUnderTest {
  /** `http://127.0.0.1:<port>`, known once the app listens (read inside the tests, not at definition). */
  base(): string;
  auth(): JourneyAuth;
}

/** The host app's own routes the journey checks. */
export interface HostJourneyRoutes {
  /** What `GET /` of the app answers (its own JSON route next to `/auth`). */
  root: unknown;
  /** A route behind the app's `requireUser`-style guard answering `{ email, sessionId }` (default `/account/me`). */
  guarded?: string;
}

const PASSWORD = "correct horse battery";

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/**
 * The journey every framework integration passes over real HTTP: Latchkey's routes at `/auth` beside the app's
 * own, a guarded route that sees the user by cookie and by Bearer (and the session in the store), Latchkey's JSON
 * 404 and security headers for unknown auth paths, CSRF on cookie requests, and an OTP sign-in.
 *
 * @example
 * hostJourney("Express 5", "express.example", { base: () => base, auth: () => auth }, { root: { app: "x" } });
 */
export function hostJourney(title: string, domain: string, host: HostUnderTest, routes: HostJourneyRoutes): void {
  const guarded = routes.guarded ?? "/account/me";
  const url = (path: string) => `${host.base()}${path}`;

  describe(`${title} with Latchkey at /auth`, () => {
    it("signs up at /auth, then the guarded route sees the user by cookie and by Bearer; the session is in the store", async () => {
      const email = `ada@${domain}`;
      const up = await fetch(url("/auth/sign-up/email"), json({ email, password: PASSWORD }));
      expect(up.status, await up.clone().text()).toBe(200);
      const { credentials, user } = (await up.json()) as { credentials: { token: string }; user: { id: string } };
      const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
      expect(cookie.startsWith("latchkey.session=")).toBe(true);

      const anonymous = await fetch(url(guarded));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ code: "INVALID_CREDENTIALS", message: "Sign in first" });

      const byCookie = await fetch(url(guarded), { headers: { cookie } });
      const me = (await byCookie.json()) as { email: string; sessionId: string };
      expect(me.email).toBe(email);
      const byBearer = await fetch(url(guarded), { headers: { authorization: `Bearer ${credentials.token}` } });
      expect(await byBearer.json()).toEqual(me);
      // The store holds that session, for that user.
      const stored = await host.auth().core.ctx.store.sessions.findByTokenHash(hashSecret(credentials.token));
      expect(stored).toMatchObject({ session: { id: me.sessionId, userId: user.id } });
    });

    it("the app's own routes keep working next to /auth, and unknown auth paths answer Latchkey's JSON 404", async () => {
      expect(await (await fetch(url("/"))).json()).toEqual(routes.root);
      const missing = await fetch(url("/auth/no-such-endpoint"));
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ code: "NOT_FOUND" });
      expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
    });

    // Issue 49: the Node bridge read a whole body before the 64 KiB limit applied (one 300 MiB POST took an Express
    // app from 126 to 1,033 MiB). The answer now comes while the client is still sending.
    it("a 300 MiB upload to /auth is refused with 413 before the client sent more than its connection buffers", async () => {
      for (const declareLength of [true, false]) {
        const answer = await streamUpload(url("/auth/sign-in/email"), 300 * MiB, { declareLength });
        expect(answer.status, answer.body).toBe(413);
        expect(JSON.parse(answer.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
        expect(answer.sent, `declared length: ${declareLength}`).toBeLessThan(32 * MiB);
      }
      expect((await fetch(url("/"))).status).toBe(200);
    });

    it("a cookie request from an untrusted origin is refused (CSRF), the same one from the app's origin passes", async () => {
      const up = await fetch(url("/auth/sign-up/email"), json({ email: `csrf@${domain}`, password: PASSWORD }));
      const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
      const evil = await fetch(url("/auth/sign-out"), json({}, { cookie, origin: "https://evil.example" }));
      expect(evil.status).toBe(403);
      const own = await fetch(url("/auth/sign-out"), json({}, { cookie, origin: host.base() }));
      expect(own.status).toBe(200);
      expect((await fetch(url(guarded), { headers: { cookie } })).status).toBe(401);
    });

    it("signs in with an emailed code (the OTP plugin)", async () => {
      const codes = new Map<string, string>();
      const off = host.auth().events.on("OtpGenerated", (e) => void codes.set(e.identifier, e.plain));
      try {
        const email = `otp@${domain}`;
        const sent = await fetch(url("/auth/email-otp/send-verification-otp"), json({ email, purpose: "sign-in" }));
        expect(sent.status).toBe(200);
        const res = await fetch(url("/auth/sign-in/email-otp"), json({ email, otp: codes.get(email) }));
        expect(res.status, await res.clone().text()).toBe(200);
        const token = ((await res.json()) as { credentials: { token: string } }).credentials.token;
        const me = await fetch(url(guarded), { headers: { authorization: `Bearer ${token}` } });
        expect(((await me.json()) as { email: string }).email).toBe(email);
      } finally {
        off();
      }
    });
  });
}
