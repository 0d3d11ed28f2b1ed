// @ts-check
// One Latchkey instance as its own Node process, for the reliability suite. Loopback only. Plain ESM on the built
// packages (no TypeScript loader): it starts in a fraction of the time, and the suite starts five of them.
// Environment: DATABASE_URL, DRIVER (pg | postgres-js), REDIS_URL and REDIS_COMMAND_TIMEOUT (optional), SECRET,
// CACHE (optional: "pg" turns the lookup cache on over PostgreSQL LISTEN/NOTIFY, "redis" over the pub/sub of CACHE_REDIS_URL).
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";
import { admin, apiKeys, argon2idHasher, emailOtp, webCryptoRandom } from "@latchkey/core";
import { drizzleStore } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as postgresJsStore } from "@latchkey/drizzle-store/postgres-js";
import { createAuth } from "@latchkey/hono-adapter";
import { redisCacheCarrier, redisCounters } from "@latchkey/redis-store";
import { CONNECT_TIMEOUT_S, QUERY_TIMEOUT_S, REDIS_TIMEOUT_S } from "./timeouts.mjs";

const databaseUrl = /** @type {string} */ (process.env.DATABASE_URL);
const driver = process.env.DRIVER ?? "pg";
const database =
  driver === "postgres-js"
    ? postgresJsStore({ client: postgres(databaseUrl, { max: 8, onnotice: () => undefined }) })
    : drizzleStore({
        url: databaseUrl,
        connectTimeout: CONNECT_TIMEOUT_S,
        queryTimeout: QUERY_TIMEOUT_S,
        maxConnections: 8,
      });
const cacheKind = process.env.CACHE;
const cache =
  cacheKind === "pg"
    ? { cache: {} }
    : cacheKind === "redis"
      ? { cache: { carrier: redisCacheCarrier({ url: /** @type {string} */ (process.env.CACHE_REDIS_URL) }) } }
      : {};
const counters = process.env.REDIS_URL
  ? redisCounters({
      url: process.env.REDIS_URL,
      connectTimeout: REDIS_TIMEOUT_S,
      commandTimeout: process.env.REDIS_COMMAND_TIMEOUT
        ? /** @type {import("@latchkey/core").Duration} */ (process.env.REDIS_COMMAND_TIMEOUT)
        : REDIS_TIMEOUT_S,
    })
  : undefined;

const auth = createAuth({
  secret: /** @type {string} */ (process.env.SECRET),
  baseUrl: "http://127.0.0.1",
  environment: "development",
  cookies: { secure: false },
  database,
  ...(counters ? { counters } : {}),
  ...cache,
  passwordHasher: argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } }),
  getClientIp: (request) => request.headers.get("x-test-ip") ?? "127.0.0.1",
  captureOtp: true,
  email: { sender: { send: async () => undefined } },
  lockout: { maxFailures: 5, window: "15m", duration: "15m" },
  // The defaults otherwise: no shared hashing budget (opt-in since issue 42), device cookies on, network buckets.
  plugins: [emailOtp(), apiKeys(), admin()],
});

const app = new Hono();
app.use("*", auth.middleware);
app.route("/auth", auth.app);
// Test-only hooks (this process is a test fixture, never an example to copy).
app.get("/test/otp", (c) => c.json({ otp: auth.getOtp(c.req.query("email") ?? "") ?? null }));
app.post("/test/api-key", async (c) => {
  /** @type {{ userId: string; remaining?: number | null; rateLimitMax?: number | null; rateLimitWindow?: number | null }} */
  const body = await c.req.json();
  return c.json(await auth.api.createApiKey(body));
});
app.post("/test/make-admin", async (c) => {
  /** @type {{ userId: string }} */
  const body = await c.req.json();
  return c.json(await auth.api.updateUser(body.userId, { appMetadata: { role: "admin" } }));
});
app.get("/test/pid", (c) => c.json({ pid: process.pid }));
app.get("/test/cache", (c) => c.json(auth.cache?.stats() ?? null));

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.stdout.write(`READY ${info.port}\n`);
});

process.on("SIGTERM", () => {
  server.close();
  void auth.close().then(() => process.exit(0));
});
