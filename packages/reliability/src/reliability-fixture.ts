// What the reliability suites share (reliability-*.test.ts, run one file at a time): the PostgreSQL cluster of each
// file's own, the two Latchkey instances of a variant (database or Redis counters) and the bounds their answers
// must meet. Two Latchkey processes on one PostgreSQL 15 cluster of the file's own (it is restarted and stopped
// there), loopback only, bounded in time and count. LATCHKEY_RELIABILITY_DRIVER=postgres-js runs the same suites on
// a postgres.js client instead of the default node-postgres pool (see docs/stores.md: it does not survive).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { startTestPostgres, type TestPostgresServer } from "../../../test/postgres-server.ts";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { CONNECT_TIMEOUT_S, QUERY_TIMEOUT_S, REDIS_TIMEOUT_S } from "./timeouts.mjs";
import { call, json, startInstance, stopInstance, type Instance } from "./harness.ts";

const DRIVER = process.env.LATCHKEY_RELIABILITY_DRIVER ?? "pg";
// The mixed load of issue 42 (two instances, 60 s: sign-ups, sign-ins, session reads, key verifies, OTP) runs on the
// database counters; the Redis variant repeats it for 10 s.
export const LOAD_MS = Number(process.env.LATCHKEY_RELIABILITY_LOAD_MS ?? 60_000);
export const REDIS_LOAD_MS = Number(process.env.LATCHKEY_RELIABILITY_REDIS_LOAD_MS ?? 10_000);

// One PostgreSQL cluster of the file's own (the outage scenario restarts and stops it, so it cannot be the run's
// shared one), used by both variants; each variant's rows carry its own prefix.
export let pgServer: TestPostgresServer;
export let url: string;
/** Starts this file's PostgreSQL cluster, migrated, before its variants; stops it after them. */
export function setUpPostgres(): void {
  beforeAll(async () => {
    pgServer = await startTestPostgres();
    url = pgServer.url;
    await migrateDatabase(url);
  });
  afterAll(async () => {
    await pgServer?.stop();
  });
}
export const PASSWORD = "reliability password";
// No answer may take longer than the configured waits it can meet (instance.mjs, timeouts.mjs): a Redis command
// timeout, then a PostgreSQL connect timeout and a query timeout, plus a stated margin for argon2id (cheap
// parameters) and scheduling on a loaded 2-core machine.
const MARGIN_MS = 3_000;
export const BOUND_MS = (REDIS_TIMEOUT_S + CONNECT_TIMEOUT_S + QUERY_TIMEOUT_S) * 1000 + MARGIN_MS;
export const WORKERS = 8;
// The Redis variant's commandTimeout (instance.mjs reads REDIS_COMMAND_TIMEOUT) and the margin a request may take
// beyond it while Redis is frozen: argon2 with the suite's small parameters, its database round trips and the
// scheduling of two server processes on a shared machine.
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
export const REDIS_MARGIN_MS = 3000;

export type Sign = { user: { id: string }; session: { id: string }; credentials: { token: string } };

/** The running variant's instances (set before its tests, by variant()) and its Redis server, if it has one. */
export let a: Instance;
export let b: Instance;
export let redis: TestRedisServer | null = null;
/** The running variant's name, as its emails carry it. */
export let variantName = "";
export const pick = (i: number) => (i % 2 === 0 ? a : b);

export const signUp = async (instance: Instance, email: string): Promise<Sign> => {
  const res = await call(instance, "POST", "/auth/sign-up/email", { body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(200);
  return json<Sign>(res);
};

type ItIf = (title: string, body: () => Promise<void>) => unknown;
/** What a variant's tests see: its name (in their emails), its load duration, and tests that run in one variant. */
export interface Variant {
  name: string;
  loadMs: number;
  itFull: ItIf;
  itRedis: ItIf;
}

/** One describe per variant: two instances started before its `tests`, stopped after (with its Redis, if any). */
export function variant(title: string, withRedis: boolean, full: boolean, loadMs: number, tests: (v: Variant) => void) {
  const name = title.replace(/\W+/g, "-").toLowerCase();
  // The outage, kill -9 and fuzz scenarios run once (database counters); the Redis variant repeats the rest.
  const itFull = (title: string, body: () => Promise<void>) => (full ? it(title, body) : undefined);
  const itRedis = (title: string, body: () => Promise<void>) => (withRedis ? it(title, body) : undefined);
  describe(`two instances on one PostgreSQL (${title}, driver ${DRIVER})`, () => {
    beforeAll(async () => {
      variantName = name;
      redis = withRedis ? await startTestRedis() : null;
      const env = {
        DATABASE_URL: url,
        DRIVER,
        SECRET: randomBytes(32).toString("hex"),
        ...(redis ? { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT: `${REDIS_COMMAND_TIMEOUT_MS / 1000}s` } : {}),
      };
      [a, b] = await Promise.all([startInstance("A", env), startInstance("B", env)]);
    });
    afterAll(async () => {
      for (const i of [a, b]) if (i) await stopInstance(i);
      await redis?.stop();
    });
    tests({ name, loadMs, itFull, itRedis });
  });
}
