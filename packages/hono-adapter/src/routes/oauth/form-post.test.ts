import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeAt,
  formPostAt,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";
import type { TestAuth } from "../../../test/test-auth.ts";
import {
  cookieOf,
  deliver,
  errorOf,
  exampleId,
  ip,
  PROVIDER,
  REDIRECT_URI,
  socialAuth,
  startFlow,
} from "../../../test/routes/oauth/social-test-kit.ts";

let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startTestOidcProvider([REDIRECT_URI]);
});
afterAll(async () => {
  await idp.close();
});

let seq = 0;
const person = () => {
  const n = `${Date.now().toString(36)}f${seq++}`;
  return { sub: `form-${n}`, email: `form-${n}@example.com`, email_verified: true, name: "Ada" };
};

const FORM = "application/x-www-form-urlencoded";

/** An auth whose provider answers with `response_mode=form_post`, as Apple does. */
const formPostAuth = () => socialAuth(idp, { providers: [exampleId(idp, { responseMode: "form_post" })] });

/** The browser POSTing the provider's auto-submitted form to Latchkey's callback: cross-site, from the provider. */
function postBack(t: TestAuth, fields: URLSearchParams, cookie: string | null): Promise<Response> {
  return t.request("POST", `/callback/${PROVIDER}`, {
    body: fields.toString(),
    ip: ip(),
    headers: {
      "content-type": FORM,
      origin: new URL(idp.issuer).origin,
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      ...(cookie ? { cookie } : {}),
    },
  });
}

describe("Apple's form_post: POST /callback/{provider}", () => {
  it("the provider's form, POSTed cross-site with the state cookie, signs in; a replay of it is refused", async () => {
    const t = formPostAuth();
    const who = person();
    const { url, stateCookie } = await startFlow(t, { callbackURL: "/home" });
    expect(new URL(url).searchParams.get("response_mode")).toBe("form_post");
    idp.login(who);
    const { action, fields } = await formPostAt(url);
    expect(action).toBe(REDIRECT_URI);
    expect(fields.get("code")).toBeTruthy();
    const res = await postBack(t, fields, stateCookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://app.example/home");
    const session = cookieOf(res, t.auth.core.config.cookies.name);
    const me = await t.request("GET", "/get-session", { headers: { cookie: session } });
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe(who.email);
    // The same form again: the state was spent.
    const again = await postBack(t, fields, stateCookie);
    expect(errorOf(again)).toBe("OAUTH_STATE_MISMATCH");
  });

  it("a browser that also sends a session cookie (SameSite=None) is not stopped by the CSRF origin check", async () => {
    const t = formPostAuth();
    const who = person();
    const { url, stateCookie } = await startFlow(t);
    idp.login(who);
    const { fields } = await formPostAt(url);
    const res = await postBack(t, fields, `${stateCookie}; ${t.auth.core.config.cookies.name}=an-old-session`);
    expect(res.status).toBe(302);
    expect(errorOf(res)).toBeNull();
    expect(await t.store.users.findByEmail(who.email)).not.toBeNull();
  });

  it("the state cookie of a form_post provider is SameSite=None and Secure (a Lax one would not come along)", async () => {
    const t = formPostAuth();
    const res = await t.request("POST", "/sign-in/social", { body: { provider: PROVIDER }, ip: ip() });
    const line = res.headers.getSetCookie().find((l) => l.includes("latchkey_oauth_state="))!;
    expect(line).toMatch(/SameSite=None/);
    expect(line).toMatch(/Secure/);
  });

  it("a form with the state but without this browser's state cookie is refused, nothing created", async () => {
    const t = formPostAuth();
    const who = person();
    const { url } = await startFlow(t);
    idp.login(who);
    const { fields } = await formPostAt(url);
    expect(errorOf(await postBack(t, fields, null))).toBe("OAUTH_STATE_MISMATCH");
    expect(await t.store.users.findByEmail(who.email)).toBeNull();
  });
});

describe("a plain HTML form posting to /sign-in/social", () => {
  it("gets a 302 to the provider with the state cookie, and the flow signs in", async () => {
    const t = socialAuth(idp);
    const who = person();
    const res = await t.request("POST", "/sign-in/social", {
      body: new URLSearchParams({ provider: PROVIDER, callbackURL: "/after" }).toString(),
      ip: ip(),
      headers: {
        "content-type": FORM,
        origin: "https://app.example",
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "navigate",
      },
    });
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    const stateCookie = cookieOf(res, "latchkey_oauth_state");
    idp.login(who);
    const back = await deliver(t, await authorizeAt(location), stateCookie);
    expect(back.headers.get("location")).toBe("https://app.example/after");
    expect(await t.store.users.findByEmail(who.email)).not.toBeNull();
  });

  it("a form field that fails validation is a JSON 400, and nothing is stored", async () => {
    const t = socialAuth(idp);
    const res = await t.request("POST", "/sign-in/social", {
      body: new URLSearchParams({ provider: PROVIDER, callbackURL: "https://evil.example/" }).toString(),
      ip: ip(),
      headers: { "content-type": FORM, origin: "https://app.example" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("INVALID_CALLBACK_URL");
  });

  it("a cross-site form is refused (403), and other endpoints still take JSON only (415)", async () => {
    const t = socialAuth(idp);
    const crossSite = await t.request("POST", "/sign-in/social", {
      body: new URLSearchParams({ provider: PROVIDER }).toString(),
      ip: ip(),
      headers: {
        "content-type": FORM,
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "navigate",
      },
    });
    expect(crossSite.status).toBe(403);
    const other = await t.request("POST", "/sign-in/email", {
      body: new URLSearchParams({ email: "a@example.com", password: "x".repeat(12) }).toString(),
      ip: ip(),
      headers: { "content-type": FORM, origin: "https://app.example" },
    });
    expect(other.status).toBe(415);
    // The CSRF check still guards the start with a session cookie from an untrusted origin.
    const withCookie = await t.request("POST", "/sign-in/social", {
      body: new URLSearchParams({ provider: PROVIDER }).toString(),
      ip: ip(),
      headers: {
        "content-type": FORM,
        origin: "https://evil.example",
        cookie: `${t.auth.core.config.cookies.name}=anything`,
      },
    });
    expect(withCookie.status).toBe(403);
  });
});
