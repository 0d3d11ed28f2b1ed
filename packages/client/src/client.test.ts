import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiKeys, argon2idHasher, emailOtp, jwt, webCryptoRandom, type Clock } from "@latchkey/core";
import { createTestClock } from "@latchkey/core/internal";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { generatedSource } from "../scripts/source.ts";
import { createLatchkeyClient, type SessionState } from "./index.ts";

const BASE = "https://app.example";

function server(clock?: Clock) {
  const store = memoryStore();
  const auth = createAuth({
    ...(clock ? { clock } : {}),
    secret: "client-test-0123456789abcdefghijklmnopqrstuvwxyz",
    baseUrl: BASE,
    database: store,
    captureOtp: true,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    email: { sender: { async send() {} } },
    // In-process calls carry no socket: name the client's address, as a host app behind its proxy would.
    getClientIp: (request) => request.headers.get("x-test-ip") ?? "192.0.2.10",
    plugins: [emailOtp(), jwt(), apiKeys()],
  });
  return { auth, store };
}

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

  it("the session store: the first subscriber fetches, sign-in and sign-out refetch, listeners see each change", async () => {
    // A clock that stands still: a JWT minted in the next second would differ, and the snapshot with it.
    const { auth } = server(createTestClock(Date.UTC(2026, 5, 1, 12, 0, 0)));
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    const seen: SessionState[] = [];
    const next = () =>
      new Promise<SessionState>((resolve) => {
        const off = client.session.subscribe((s) => {
          off();
          resolve(s);
        });
      });
    expect(client.session.get()).toMatchObject({ data: null, isPending: true });
    const unsubscribe = client.session.subscribe((s) => seen.push(s));
    await client.session.refetch();
    expect(client.session.get()).toMatchObject({ data: null, isPending: false, error: null });

    const signedIn = next();
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    expect((await signedIn).data?.user.email).toBe("ada@example.com");
    expect(client.session.get().jwt).toMatch(/^ey/);
    const snapshot = client.session.get();
    await client.session.refetch();
    expect(client.session.get()).toBe(snapshot); // unchanged data keeps the same object (stable React snapshots)

    const signedOut = next();
    await client.signOut();
    expect((await signedOut).data).toBeNull();
    unsubscribe();
    expect(seen.map((s) => s.data?.user.email ?? null)).toEqual([null, "ada@example.com", null]);
  });

  describe("the previous user's JWT never outlives the session (review fix 16)", () => {
    const signedInClient = async () => {
      const { auth, store } = server();
      const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
      await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
      await client.session.refetch();
      expect(client.getJwt()).toMatch(/^ey/);
      expect(client.session.get().jwt).toMatch(/^ey/);
      const user = await store.users.findByEmail("ada@example.com");
      return { auth, store, client, userId: user!.id };
    };

    it("after sign-out the next user of the page gets no JWT from getJwt() or session.jwt", async () => {
      const { client } = await signedInClient();
      await client.signOut();
      expect(client.getJwt()).toBeNull();
      await client.session.refetch();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });

    it("after account deletion the JWT is gone", async () => {
      const { client } = await signedInClient();
      expect((await client.deleteAccount({ password: "correct horse battery" })).error).toBeNull();
      expect(client.getJwt()).toBeNull();
    });

    it("a session revoked elsewhere: get-session answering null clears the JWT", async () => {
      const { store, client, userId } = await signedInClient();
      await store.sessions.deleteByUser(userId);
      expect((await client.getSession()).data).toBeNull();
      expect(client.getJwt()).toBeNull();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });

    it("a session revoked elsewhere: any 401 clears the JWT and the session store follows", async () => {
      const { store, client, userId } = await signedInClient();
      await store.sessions.deleteByUser(userId);
      const refused = await client.listApiKeys({ limit: 5 });
      expect(refused.error?.status).toBe(401);
      expect(client.getJwt()).toBeNull();
      await client.session.refetch();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });
  });

  it("a sign-in that finishes while an older session request is under way still ends signed in", async () => {
    const { auth } = server();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        if (first && r.url.endsWith("/get-session")) {
          first = false;
          const answer = await auth.handler(r);
          await gate;
          return answer;
        }
        return auth.handler(r);
      },
    });
    const stale = client.session.refetch(); // answers "signed out", but only after the sign-in below
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const after = client.session.refetch();
    release();
    await stale;
    expect((await after).data?.user.email).toBe("ada@example.com");
    expect(client.session.get().data?.user.email).toBe("ada@example.com");
  });

  it("an app's own getSession() answered after sign-out does not put the previous user or their JWT back", async () => {
    const { auth } = server();
    let hold: Promise<void> | null = null;
    let release: () => void = () => undefined;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        const answer = await auth.handler(r);
        if (hold && r.url.endsWith("/get-session")) {
          const gate = hold;
          hold = null;
          await gate;
        }
        return answer;
      },
    });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.session.refetch();
    expect(client.session.get().data?.user.email).toBe("ada@example.com");
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = client.getSession(); // the app's own call: answered "Ada, with a JWT", but only after sign-out
    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch(); // the store knows: signed out
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    release();
    expect((await mine).data?.user.email).toBe("ada@example.com"); // its caller still gets what it asked for
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    expect(client.getJwt()).toBeNull();
    expect(client.getBearerToken()).toBeNull();
  });

  it("sign-out forgets locally first: a failed sign-out request or a failed follow-up leaves no user, token or JWT", async () => {
    const { auth } = server();
    let offline: "sign-out" | "get-session" | null = null;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        if (offline && r.url.endsWith(`/${offline}`)) throw new TypeError("Failed to fetch");
        return auth.handler(r);
      },
    });
    const signIn = async () => {
      await client.signUpEmail({ email: `ada${Math.random()}@example.com`, password: "correct horse battery" });
      await client.session.refetch();
      expect(client.session.get().data).not.toBeNull();
      expect(client.getJwt()).not.toBeNull();
    };
    await signIn();
    offline = "get-session";
    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch();
    expect(client.session.get().data).toBeNull();
    expect(client.getJwt()).toBeNull();

    offline = null;
    await signIn();
    offline = "sign-out";
    expect((await client.signOut()).error?.code).toBe("NETWORK_ERROR");
    expect(client.getBearerToken()).toBeNull();
    expect(client.getJwt()).toBeNull();
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
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

// Issue 42: overload is not refusal. A 503 with Retry-After (a full hashing queue) is retried once by itself.
describe("503 with Retry-After", () => {
  const answers = (...statuses: number[]) => {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      const status = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
      return status === 503
        ? new Response(JSON.stringify({ code: "BUSY", message: "busy" }), {
            status,
            headers: { "content-type": "application/json", "retry-after": "0" },
          })
        : new Response(JSON.stringify({ success: true }), { status, headers: { "content-type": "application/json" } });
    };
    return { seen, fetch };
  };

  it("is retried once after Retry-After seconds, with the same body, and the retry's answer is the answer", async () => {
    const once = answers(503, 200);
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: once.fetch });
    const result = await client.requestPasswordReset({ email: "ada@example.com" });
    expect(result.error).toBeNull();
    expect(once.seen).toHaveLength(2);
    expect(await once.seen[1]!.json()).toEqual({ email: "ada@example.com" });

    const twice = answers(503, 503, 200);
    const stubborn = await createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: twice.fetch }).requestPasswordReset({
      email: "ada@example.com",
    });
    expect(stubborn.error?.code).toBe("BUSY");
    expect(twice.seen).toHaveLength(2);
  });

  it("retryOn503: false answers the 503 at once", async () => {
    const off = answers(503, 200);
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: off.fetch, retryOn503: false });
    const result = await client.requestPasswordReset({ email: "ada@example.com" });
    expect(result.error).toMatchObject({ code: "BUSY", status: 503 });
    expect(off.seen).toHaveLength(1);
  });

  it("bearer mode keeps the device token of each sign-in and sends it with the next sign-in", async () => {
    const { auth } = server();
    const tokens: Array<string | null> = [];
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: (request) => auth.handler(request),
      onDeviceTokenChange: (token) => tokens.push(token),
    });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.signInEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.signInEmail({ email: "ada@example.com", password: "correct horse battery" });
    // Sign-up, then two sign-ins: each rotated the token the previous one presented.
    expect(tokens).toHaveLength(3);
    expect(new Set(tokens).size).toBe(3);
  });
});
