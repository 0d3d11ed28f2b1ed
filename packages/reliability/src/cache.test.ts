import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { startTestPostgres, type TestPostgresServer } from "../../../test/postgres-server.ts";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { call, json, sleep, startInstance, stopInstance, type Instance } from "./harness.ts";

// The lookup cache across two processes (createAuth({ cache })): a session signed out on A is refused by B once
// the carrier delivered the invalidation. Each revocation's delivery time (A's sign-out answered -> B's first
// refusal, B polled back to back) is collected and its p50/p99 printed; the test asserts no time, only that every
// revocation arrives within a generous ceiling and is never served again afterwards. PostgreSQL restarts: the
// LISTEN connection is lost and comes back, and no revoked session is served after the restart either.
// LATCHKEY_CACHE_REVOCATIONS sets the count (the measurement is 1000; `pnpm test` runs 200).

const REVOCATIONS = Number(process.env.LATCHKEY_CACHE_REVOCATIONS ?? 200);
const CEILING_MS = 10_000;
const PASSWORD = "reliability password";
const REPORT = process.env.LATCHKEY_CACHE_DELIVERY_REPORT;

type Stats = { hits: number; bypassed: boolean; carrierLosses: number; invalidationsReceived: number };
type Sign = { user: { id: string }; credentials: { token: string } };

let pgServer: TestPostgresServer;
let redis: TestRedisServer;
beforeAll(async () => {
  [pgServer, redis] = await Promise.all([startTestPostgres(), startTestRedis()]);
  await migrateDatabase(pgServer.url);
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), redis?.stop()]);
});

const stats = async (i: Instance) => json<Stats>(await call(i, "GET", "/test/cache"));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** B's answer for the session: "valid", "refused", or "unavailable" (503 while PostgreSQL restarts). */
async function sessionOn(i: Instance, token: string): Promise<"valid" | "refused" | "unavailable"> {
  const res = await call(i, "GET", "/auth/get-session", { headers: bearer(token) });
  if (res.status !== 200) return "unavailable";
  return json<unknown>(res) === null ? "refused" : "valid";
}
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS * 3;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(20);
  }
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

function variant(carrier: "pg" | "redis") {
  describe(`lookup cache across two processes (${carrier === "pg" ? "PostgreSQL LISTEN/NOTIFY" : "Redis pub/sub"})`, () => {
    let a: Instance;
    let b: Instance;
    let email: string;

    beforeAll(async () => {
      const env = {
        DATABASE_URL: pgServer.url,
        SECRET: randomBytes(32).toString("hex"),
        CACHE: carrier,
        ...(carrier === "redis" ? { CACHE_REDIS_URL: redis.url } : {}),
      };
      [a, b] = await Promise.all([startInstance("A", env), startInstance("B", env)]);
      for (const i of [a, b]) await until(`${i.name}'s cache listens`, async () => !(await stats(i)).bypassed);
      email = `cache-${carrier}-${randomBytes(4).toString("hex")}@example.com`;
      const res = await call(a, "POST", "/auth/sign-up/email", { body: { email, password: PASSWORD } });
      expect(res.status, res.text).toBe(200);
    });
    afterAll(async () => {
      for (const i of [a, b]) if (i) await stopInstance(i);
    });

    const signIn = async (): Promise<string> => {
      for (;;) {
        const res = await call(a, "POST", "/auth/sign-in/email", { body: { email, password: PASSWORD } });
        if (res.status === 200) return json<Sign>(res).credentials.token;
        if (res.status !== 503) throw new Error(`sign-in: ${res.status} ${res.text}`);
        await sleep(100);
      }
    };
    /** Signs out on A (retrying while PostgreSQL is away) and returns when A answered. */
    const signOut = async (token: string) => {
      for (;;) {
        const res = await call(a, "POST", "/auth/sign-out", { headers: bearer(token) });
        if (res.status === 200) return;
        if (res.status !== 503) throw new Error(`sign-out: ${res.status} ${res.text}`);
        await sleep(100);
      }
    };
    /** Polls B until it refuses the session; the milliseconds from `since`. */
    const refusedBy = async (token: string, since: number): Promise<number> => {
      for (;;) {
        const answer = await sessionOn(b, token);
        const ms = performance.now() - since;
        if (answer === "refused") return ms;
        if (ms > CEILING_MS) throw new Error(`B still answers ${answer} ${Math.round(ms)} ms after the sign-out`);
      }
    };

    it(`${REVOCATIONS} sign-outs on A are each refused by B once delivered, and never served again`, async () => {
      const delivery: number[] = [];
      const before = await stats(b);
      for (let n = 0; n < REVOCATIONS; n++) {
        const token = await signIn();
        // B reads it twice: the second answer comes from its cache.
        expect(await sessionOn(b, token)).toBe("valid");
        expect(await sessionOn(b, token)).toBe("valid");
        await signOut(token);
        delivery.push(await refusedBy(token, performance.now()));
        expect(await sessionOn(b, token)).toBe("refused");
      }
      const after = await stats(b);
      // The sessions were answered from B's cache, and B heard every sign-out.
      expect(after.hits - before.hits).toBeGreaterThanOrEqual(REVOCATIONS);
      expect(after.invalidationsReceived - before.invalidationsReceived).toBeGreaterThanOrEqual(REVOCATIONS);
      const sorted = [...delivery].sort((x, y) => x - y);
      const figures = {
        carrier,
        revocations: REVOCATIONS,
        p50Ms: Number(percentile(sorted, 50).toFixed(2)),
        p99Ms: Number(percentile(sorted, 99).toFixed(2)),
        maxMs: Number((sorted.at(-1) as number).toFixed(2)),
      };
      console.log(`[cache delivery] ${JSON.stringify(figures)}`);
      if (REPORT) writeFileSync(`${REPORT}.${carrier}.json`, `${JSON.stringify(figures)}\n`);
    });

    it("a ban on A: B refuses the user's sessions and API key once delivered; an impersonation stopped on A ends on B", async () => {
      const signUp = async (address: string) => {
        const res = await call(a, "POST", "/auth/sign-up/email", { body: { email: address, password: PASSWORD } });
        expect(res.status, res.text).toBe(200);
        return json<Sign>(res);
      };
      const tag = randomBytes(4).toString("hex");
      const boss = await signUp(`boss-${carrier}-${tag}@example.com`);
      expect((await call(a, "POST", "/test/make-admin", { body: { userId: boss.user.id } })).status).toBe(200);
      const victim = await signUp(`victim-${carrier}-${tag}@example.com`);
      const key = json<{ key: string }>(
        await call(a, "POST", "/test/api-key", { body: { userId: victim.user.id } }),
      ).key;
      const keyOn = async (i: Instance) =>
        json<{ valid: boolean; error?: { code: string } }>(
          await call(i, "POST", "/auth/api-key/verify", { body: { key } }),
        );
      const token = victim.credentials.token;
      for (let n = 0; n < 2; n++) {
        expect(await sessionOn(b, token)).toBe("valid");
        expect((await keyOn(b)).valid).toBe(true);
      }
      const banned = await call(a, "POST", "/auth/admin/ban-user", {
        body: { userId: victim.user.id },
        headers: bearer(boss.credentials.token),
      });
      expect(banned.status, banned.text).toBe(200);
      const since = performance.now();
      await refusedBy(token, since);
      await until("B refuses the banned user's key", async () => (await keyOn(b)).error?.code === "KEY_DISABLED");
      console.log(
        `[cache delivery] ban (${carrier}): session refused by B after ${Math.round(performance.now() - since)} ms`,
      );
      for (let n = 0; n < 10; n++) {
        expect(await sessionOn(b, token)).toBe("refused");
        expect((await keyOn(b)).error?.code).toBe("KEY_DISABLED");
      }
      // No new session for the banned user on B either.
      const refused = await call(b, "POST", "/auth/sign-in/email", {
        body: { email: `victim-${carrier}-${tag}@example.com`, password: PASSWORD },
      });
      expect(refused.status).toBe(403);
      expect(json<{ code: string }>(refused).code).toBe("USER_BANNED");

      // Impersonation: started and stopped on A; B serves it while it lasts and refuses it once the stop arrives.
      const watched = await signUp(`watched-${carrier}-${tag}@example.com`);
      const started = await call(a, "POST", "/auth/admin/impersonate-user", {
        body: { userId: watched.user.id },
        headers: bearer(boss.credentials.token),
      });
      expect(started.status, started.text).toBe(200);
      const as = json<Sign>(started).credentials.token;
      expect(await sessionOn(b, as)).toBe("valid");
      expect(await sessionOn(b, as)).toBe("valid");
      const stopped = await call(a, "POST", "/auth/admin/stop-impersonating", { headers: bearer(as) });
      expect(stopped.status, stopped.text).toBe(200);
      await refusedBy(as, performance.now());
      expect(await sessionOn(b, as)).toBe("refused");
    });

    it("PostgreSQL restarts: B bypasses its cache, listens again, and serves no session revoked meanwhile", async () => {
      const revoked = await signIn();
      expect(await sessionOn(b, revoked)).toBe("valid");
      expect(await sessionOn(b, revoked)).toBe("valid");
      const losses = (await stats(b)).carrierLosses;
      await pgServer.restart();
      await signOut(revoked);
      const since = performance.now();
      await refusedBy(revoked, since);
      for (let n = 0; n < 20; n++) expect(await sessionOn(b, revoked)).toBe("refused");
      // The cache works again once its carrier is back (and was flushed).
      await until("B's cache listens again", async () => !(await stats(b)).bypassed);
      if (carrier === "pg") expect((await stats(b)).carrierLosses).toBeGreaterThan(losses);
      const fresh = await signIn();
      const hits = (await stats(b)).hits;
      expect(await sessionOn(b, fresh)).toBe("valid");
      expect(await sessionOn(b, fresh)).toBe("valid");
      expect((await stats(b)).hits).toBeGreaterThan(hits);
      await signOut(fresh);
      await refusedBy(fresh, performance.now());
    });
  });
}

variant("pg");
variant("redis");
