import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../test/test-auth.ts";

// Review fix 17: sign-in answers carried `credentials.token`, the value of the HttpOnly session cookie, to any
// script of a cookie-mode page (an injected script, a fetch hook) that reads the answer. Now a browser page's
// request gets the cookie and no token; a Bearer client asks for it (`latchkey-credentials: bearer`), and clients
// that are not browser pages (no Origin, no Fetch Metadata) keep getting it.

const browser = { origin: BASE_URL, "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors" };

const tokenOf = (body: unknown) => (body as { credentials?: { token?: string } }).credentials?.token;
const cookieToken = (res: Response) => /latchkey\.session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

describe("session token in sign-in answers", () => {
  it("a script on a cookie-mode page reading sign-in answers never sees the session token", async () => {
    const t = createTestAuth({ plugins: [emailOtp()] });
    const up = await t.request("POST", "/sign-up/email", {
      headers: browser,
      body: { email: "ada@example.com", password: "ada password 1" },
    });
    expect(up.status).toBe(200);
    const upBody = await up.json();
    expect(upBody).not.toHaveProperty("credentials");
    expect(JSON.stringify(upBody)).not.toContain(cookieToken(up)!);
    expect(upBody).toMatchObject({ user: { email: "ada@example.com" } });

    const signIn = await t.request("POST", "/sign-in/email", {
      headers: { origin: BASE_URL },
      body: { email: "ada@example.com", password: "ada password 1" },
    });
    expect(signIn.status).toBe(200);
    const signInBody = await signIn.json();
    expect(tokenOf(signInBody)).toBeUndefined();
    expect(JSON.stringify(signInBody)).not.toContain(cookieToken(signIn)!);

    await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "ada@example.com", purpose: "sign-in" },
    });
    const otp = await t.request("POST", "/sign-in/email-otp", {
      headers: browser,
      body: { email: "ada@example.com", otp: t.auth.getOtp("ada@example.com") },
    });
    expect(otp.status).toBe(200);
    expect(tokenOf(await otp.json())).toBeUndefined();
    // The cookie it did get is a working session.
    const session = await t.request("GET", "/get-session", {
      headers: { cookie: `__Host-latchkey.session=${cookieToken(otp)}` },
    });
    expect(await session.json()).toMatchObject({ user: { email: "ada@example.com" } });
  });

  it("a Bearer client that asks gets the token, from a browser too; a non-browser client gets it as before", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com", "ada password 1");
    const body = { email: "ada@example.com", password: "ada password 1" };
    const asked = await t.request("POST", "/sign-in/email", {
      headers: { ...browser, "latchkey-credentials": "bearer" },
      body,
    });
    const askedToken = tokenOf(await asked.json());
    expect(askedToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(askedToken).toBe(cookieToken(asked));
    const server = await t.request("POST", "/sign-in/email", { body });
    expect(tokenOf(await server.json())).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
