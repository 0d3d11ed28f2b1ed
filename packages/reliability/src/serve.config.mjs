// @ts-check
// The config both `latchkey serve` processes of serve.test.ts run: PostgreSQL (node-postgres) plus Redis counters,
// as a deployment of several instances behind a load balancer would. Plain ESM, no loader.
// Environment: DATABASE_URL, REDIS_URL, SECRET.
import { apiKeys, argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { drizzleStore } from "@latchkey/drizzle-store/postgres";
import { redisCounters } from "@latchkey/redis-store";

/** @param {Record<string, string | undefined>} env */
export default (env) => ({
  secret: env.SECRET ?? "",
  baseUrl: "http://127.0.0.1",
  database: drizzleStore({ url: env.DATABASE_URL ?? "", connectTimeout: 2, queryTimeout: 3, maxConnections: 8 }),
  counters: redisCounters({ url: env.REDIS_URL ?? "", keyPrefix: "serve:" }),
  passwordHasher: argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } }),
  // The load generator plays many clients; a real deployment reads the address its proxy sets.
  /** @param {Request} request */
  getClientIp: (request) => request.headers.get("x-test-ip") ?? "127.0.0.1",
  lockout: { maxFailures: 5, window: "15m", duration: "15m" },
  // The defaults otherwise: no shared hashing budget (opt-in since issue 42), device cookies on, network buckets.
  // Every key created over HTTP gets a quota of 40 uses (the quota scenario).
  plugins: [apiKeys({ defaultRemaining: 40 })],
});
