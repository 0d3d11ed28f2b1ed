import { magicLink, twoFactor } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { betterAuth } from "better-auth";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type PoolItem, totpCode } from "../harness/pool.ts";
import { betterAuthDatabase, betterAuthPlugins } from "./better-auth-db.ts";
import { betterAuthPoolSeeder, latchkeyPoolSeeder } from "./pool-seed.ts";

// What the measured requests of `two-factor-verify` and `magic-link-verify` spend: each seeded credential is accepted
// by the library's own route (the code of the current time step, as the load generator computes it), once.
const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
const BASE = "http://127.0.0.1:4999";
const post = (path: string, body: unknown, cookie = "") =>
  new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: BASE, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const code = (item: PoolItem) => totpCode(item.key ?? "", Date.now());

describe("Latchkey's pools", () => {
  const tokens = new Map<string, string>();
  const store = memoryStore();
  const auth = createAuth({
    secret: SECRET,
    database: store,
    baseUrl: BASE,
    email: { sender: { send: async () => undefined }, resendCooldown: false, perRecipient: false, recipientCap: false },
    rateLimit: { enabled: false },
    plugins: [twoFactor(), magicLink()],
  });
  auth.events.on("OtpGenerated", (event) => tokens.set(event.identifier, event.plain));
  const app = new Hono();
  app.use("*", auth.middleware);
  app.route("/auth", auth.app);
  const seed = latchkeyPoolSeeder(auth, store, tokens);

  it("seeds pending sign-ins that POST /two-factor/verify finishes with a current code, each once", async () => {
    const items = await seed("two-factor", 2);
    expect(new Set(items.map((i) => i.credential)).size).toBe(2);
    for (const item of items) {
      const first = await app.request(post("/auth/two-factor/verify", { code: code(item) }, item.credential));
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await first.json()).toHaveProperty("session");
      const again = await app.request(post("/auth/two-factor/verify", { code: code(item) }, item.credential));
      expect(again.status).toBe(401);
    }
  });

  it("seeds links of returning users that POST /magic-link/verify spends, each once", async () => {
    const items = await seed("magic-link", 2);
    for (const item of items) {
      const first = await app.request(post("/auth/magic-link/verify", { token: item.credential }));
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await first.json()).toHaveProperty("session");
      const again = await app.request(post("/auth/magic-link/verify", { token: item.credential }));
      expect(again.status).toBe(400);
    }
  });
});

describe("Better Auth's pools", async () => {
  const links = new Map<string, string>();
  const options = {
    secret: SECRET,
    baseURL: BASE,
    basePath: "/auth",
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { level: "error" as const },
    plugins: betterAuthPlugins(false, () => undefined, { onMagicLink: (email, token) => links.set(email, token) }),
  };
  const db = await betterAuthDatabase({ kind: "memory" }, options);
  const auth = betterAuth({ ...options, database: db.database });
  const seed = betterAuthPoolSeeder(auth, links);

  it("seeds pending sign-ins that POST /two-factor/verify-totp finishes with a current code, each once", async () => {
    const items = await seed("two-factor", 2);
    for (const item of items) {
      const first = await auth.handler(post("/auth/two-factor/verify-totp", { code: code(item) }, item.credential));
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await first.json()).toHaveProperty("user");
      const again = await auth.handler(post("/auth/two-factor/verify-totp", { code: code(item) }, item.credential));
      expect(again.status).toBe(401);
    }
  });

  it("seeds links of returning users that GET /magic-link/verify spends, each once", async () => {
    const items = await seed("magic-link", 2);
    const verify = (token: string) =>
      auth.handler(new Request(`${BASE}/auth/magic-link/verify?token=${encodeURIComponent(token)}`));
    for (const item of items) {
      const first = await verify(item.credential);
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await first.json()).toHaveProperty("session");
      // Spent: it redirects with the error instead.
      expect((await verify(item.credential)).status).toBe(302);
    }
  });
});
