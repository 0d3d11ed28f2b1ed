import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generatedSource } from "../scripts/source.ts";
import { BASE, server } from "../test/test-server.ts";
import { createLatchkeyClient } from "./index.ts";

describe("@latchkey/client", () => {
  it("the committed generated types match the server's current OpenAPI document", async () => {
    const committed = readFileSync(new URL("./generated/api.ts", import.meta.url), "utf8");
    // Stale after a route or schema change: rebuild @latchkey/hono-adapter, then `pnpm --filter @latchkey/client generate`.
    expect(
      committed === (await generatedSource()),
      "src/generated/api.ts is stale: run `pnpm --filter @latchkey/client generate`",
    ).toBe(true);
  });

  it("bearer mode: signs up, keeps the token, types the answers, reads set-auth-jwt and signs out", async () => {
    const { auth, store } = server();
    const tokens: Array<string | null> = [];
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: (r) => auth.handler(r),
      onTokenChange: (t) => tokens.push(t),
    });
    const signUp = await client.signUpEmail({
      email: "ada@example.com",
      password: "correct horse battery",
      name: "Ada",
    });
    expect(signUp.error).toBeNull();
    const token = client.getBearerToken();
    expect(token).toMatch(/.{20,}/);
    expect(tokens).toEqual([token]);

    const session = await client.getSession();
    expect(session.data?.user.email).toBe("ada@example.com");
    expect(client.getJwt()).toMatch(/^ey/);
    const user = await store.users.findByEmail("ada@example.com");
    expect(session.data?.user.id).toBe(user!.id);

    const created = await client.createApiKey({ name: "ci", expiresIn: "30d" });
    expect(created.data?.key).toMatch(/^lk_/);
    const listed = await client.listApiKeys({ limit: 5 });
    expect(listed.data?.apiKeys.map((k) => k.name)).toEqual(["ci"]);

    expect((await client.signOut()).data).toEqual({ success: true });
    expect(client.getBearerToken()).toBeNull();
    expect(tokens).toEqual([token, null]);
    expect(await auth.api.getSession(token!)).toBeNull();
  });

  it("lists and revokes sessions: another device, then everywhere (bearer mode forgets its token)", async () => {
    const { auth, store } = server();
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const phone = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    await phone.signInEmail({ email: "ada@example.com", password: "correct horse battery", rememberMe: false });
    const listed = await client.listSessions();
    expect(listed.data?.sessions.map((s) => s.current).sort()).toEqual([false, true]);
    const other = listed.data!.sessions.find((s) => !s.current)!;
    expect((await client.revokeSession({ sessionId: other.id })).data).toEqual({ success: true });
    expect((await phone.getSession()).data).toBeNull();
    const missing = await client.revokeSession({ sessionId: other.id });
    expect(missing.error).toMatchObject({ code: "SESSION_NOT_FOUND", status: 404 });
    expect((await client.revokeOtherSessions()).data).toEqual({ revoked: 0 });
    expect((await client.revokeSessions()).data).toEqual({ revoked: 1 });
    expect(client.getBearerToken()).toBeNull();
    const user = await store.users.findByEmail("ada@example.com");
    expect(await store.sessions.listByUser(user!.id)).toEqual([]);
  });

  it("errors come back as { code, message, status } and never throw", async () => {
    const { auth } = server();
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const wrong = await client.signInEmail({ email: "ada@example.com", password: "not the password" });
    expect(wrong.data).toBeNull();
    expect(wrong.error).toMatchObject({ code: "INVALID_CREDENTIALS", status: 401, message: expect.any(String) });
    const invalid = await client.signInEmail({ email: "ada@example.com", password: 42 as unknown as string });
    expect(invalid.error).toMatchObject({ code: "INVALID_REQUEST", status: 400, details: expect.any(Array) });
    const offline = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    expect((await offline.getSession()).error).toEqual({ code: "NETWORK_ERROR", message: "fetch failed", status: 0 });
  });

  it("cookie mode sends credentials: include and no Authorization header; call options add headers", async () => {
    const requests: Request[] = [];
    const client = createLatchkeyClient({
      baseURL: "https://api.example/auth/",
      headers: { "x-app": "demo" },
      fetch: async (r) => {
        requests.push(r);
        return Response.json(null);
      },
    });
    await client.getSession({ headers: { "x-trace": "1" } });
    await client.listApiKeys({ limit: 3, cursor: "abc" });
    await client.requestAccountDeletion();
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET https://api.example/auth/get-session",
      "GET https://api.example/auth/api-key/list?limit=3&cursor=abc",
      "POST https://api.example/auth/delete-account/request",
    ]);
    expect(requests[0]!.credentials).toBe("include");
    expect(requests[0]!.headers.get("authorization")).toBeNull();
    expect(requests[0]!.headers.get("x-app")).toBe("demo");
    expect(requests[0]!.headers.get("x-trace")).toBe("1");
    expect(await requests[2]!.text()).toBe("{}");
  });
});
