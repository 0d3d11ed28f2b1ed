import { afterEach, describe, expect, it, vi } from "vitest";
import { oauth, oauth2 } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { createLatchkeyClient } from "./index.ts";

const BASE = "https://app.example";

function client() {
  const auth = createAuth({
    secret: "client-social-0123456789abcdefghijklmnopqrstuvwxyz",
    baseUrl: BASE,
    database: memoryStore(),
    getClientIp: () => "192.0.2.20",
    plugins: [
      oauth({
        providers: [
          oauth2({
            id: "acme",
            authorizationUrl: "https://acme.example/oauth/authorize",
            tokenUrl: "https://acme.example/oauth/token",
            userInfoUrl: "https://api.acme.example/me",
            clientId: "acme-client",
            clientSecret: "acme-secret",
            mapProfile: (p) => ({ id: String(p.id), email: null, emailVerified: false, name: null, image: null }),
          }),
        ],
      }),
    ],
  });
  return createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: (r) => auth.handler(r) });
}

/** A browser's `location`, recording where the page was sent. */
function fakeLocation(): string[] {
  const visited: string[] = [];
  vi.stubGlobal("location", { assign: (url: string) => visited.push(url) });
  return visited;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("signIn.social and linkSocialAccount", () => {
  it("asks for the provider's URL and sends the browser there", async () => {
    const visited = fakeLocation();
    const { data, error } = await client().signIn.social({ provider: "acme", callbackURL: "/dashboard" });
    expect(error).toBeNull();
    const url = new URL((data as { url: string }).url);
    expect(url.origin + url.pathname).toBe("https://acme.example/oauth/authorize");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toBe(`${BASE}/auth/callback/acme`);
    expect(visited).toEqual([url.href]);
  });

  it("redirect: false only answers the URL", async () => {
    const visited = fakeLocation();
    const { data } = await client().signIn.social({ provider: "acme" }, { redirect: false });
    expect((data as { url: string }).url).toMatch(/^https:\/\/acme\.example\//);
    expect(visited).toEqual([]);
  });

  it("an error goes nowhere and comes back typed: an unknown provider, a link without a session", async () => {
    const visited = fakeLocation();
    const auth = client();
    const unknown = await auth.signIn.social({ provider: "nobody" });
    expect(unknown.error).toMatchObject({ status: 404 });
    const link = await auth.linkSocialAccount({ provider: "acme" });
    expect(link.error).toMatchObject({ status: 401 });
    expect(visited).toEqual([]);
  });

  it("without a `location` (a server), the URL is only answered", async () => {
    const { data, error } = await client().signIn.social({ provider: "acme" });
    expect(error).toBeNull();
    expect((data as { url: string }).url).toMatch(/^https:\/\/acme\.example\//);
  });
});
