// Two instances on one PostgreSQL share what one process could not: an OTP spent once, API key quotas and windows,
// per-IP limits and the lockout; and the mixed load, with the database matching the answers. Both variants.
// Setup: reliability-fixture.ts, mixed-load.ts.
import { expect, it } from "vitest";
import { call, freshIp, json, query } from "./harness.ts";
import {
  a,
  b,
  BOUND_MS,
  LOAD_MS,
  PASSWORD,
  pick,
  REDIS_LOAD_MS,
  setUpPostgres,
  signUp,
  url,
  variant,
  type Variant,
  WORKERS,
} from "./reliability-fixture.ts";
import { reconcile, startMixedLoad } from "./mixed-load.ts";

setUpPostgres();

const tests = ({ name, loadMs }: Variant) => {
  it("OTP: of 20 parallel correct submissions across both instances exactly one signs in", async () => {
    const email = `otp-once-${name}@example.com`;
    expect(
      (await call(a, "POST", "/auth/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } })).status,
    ).toBe(200);
    const { otp } = json<{ otp: string }>(await call(a, "GET", `/test/otp?email=${encodeURIComponent(email)}`));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(pick(i), "POST", "/auth/sign-in/email-otp", { body: { email, otp } })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(
      answers.filter((r) => ![200, 400, 403, 429].includes(r.status)).map((r) => `${r.status} ${r.text.slice(0, 100)}`),
    ).toEqual([]);
    const rows = await query<{ users: string; accounts: string; sessions: string }>(
      url,
      `select
      (select count(*) from users where email = $1)::text as users,
      (select count(*) from accounts a join users u on u.id = a.user_id where u.email = $1)::text as accounts,
      (select count(*) from sessions s join users u on u.id = s.user_id where u.email = $1)::text as sessions`,
      [email],
    );
    expect(rows[0]).toEqual({ users: "1", accounts: "1", sessions: "1" });
  });

  it("API keys: quota and per-key window are exact across instances", async () => {
    const owner = await signUp(a, `keys-${name}@example.com`);
    const quota = json<{ key: string; apiKey: { id: string } }>(
      await call(a, "POST", "/test/api-key", { body: { userId: owner.user.id, remaining: 40 } }),
    );
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        call(pick(i), "POST", "/auth/api-key/verify", { body: { key: quota.key } }),
      ),
    );
    expect(
      answers
        .filter((r) => r.status !== 200)
        .map((r) => r.text.slice(0, 100))
        .slice(0, 5),
    ).toEqual([]);
    expect(answers.filter((r) => r.status === 200 && json<{ valid: boolean }>(r).valid)).toHaveLength(40);
    expect(await query(url, "select remaining from api_keys where id = $1", [quota.apiKey.id])).toEqual([
      { remaining: 0 },
    ]);

    const windowed = json<{ key: string }>(
      await call(b, "POST", "/test/api-key", {
        body: { userId: owner.user.id, rateLimitMax: 10, rateLimitWindow: 600 },
      }),
    );
    const hits = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(pick(i), "POST", "/auth/api-key/verify", { body: { key: windowed.key } }),
      ),
    );
    expect(hits.filter((r) => r.status === 200 && json<{ valid: boolean }>(r).valid)).toHaveLength(10);
    expect(
      hits.filter(
        (r) => r.status === 200 && json<{ valid: boolean; error?: { code: string } }>(r).error?.code === "RATE_LIMITED",
      ),
    ).toHaveLength(20);
  });

  it("per-IP limits are shared: 30 sign-ins from one address across both instances, exactly 10 get through", async () => {
    const ip = freshIp();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(pick(i), "POST", "/auth/sign-in/email", {
          ip,
          body: { email: `nobody-${i}-${name}@example.com`, password: "wrong password" },
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 401)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 429 && /RATE_LIMITED/.test(r.text))).toHaveLength(20);
  });

  it("lockout is shared: 5 wrong passwords across both instances lock the account on both", async () => {
    const email = `lock-${name}@example.com`;
    await signUp(b, email);
    for (let i = 0; i < 5; i++) {
      const res = await call(pick(i), "POST", "/auth/sign-in/email", { body: { email, password: "wrong password" } });
      expect(res.status).toBe(401);
    }
    for (const instance of [a, b]) {
      const res = await call(instance, "POST", "/auth/sign-in/email", { body: { email, password: PASSWORD } });
      expect(res.status).toBe(429);
      expect(json<{ code: string }>(res).code).toBe("ACCOUNT_LOCKED");
    }
  });

  it(`mixed load for ${loadMs / 1000} s (sign-ups, sign-ins, session reads, key verifies, OTP): every answer 200 (no 503), and the database matches the answers`, async () => {
    const { prefix, ledger, done } = startMixedLoad("mix", WORKERS, { durationMs: loadMs });
    await done;
    const statuses = ledger.answers.map((r) => r.status);
    // Every worker gets an answer at least once per BOUND_MS (no answer may take longer): a floor, not a speed.
    expect(statuses.length).toBeGreaterThanOrEqual(WORKERS * Math.floor(loadMs / BOUND_MS));
    expect(
      ledger.answers
        .filter((r) => r.status !== 200)
        .slice(0, 10)
        .map((r) => `${r.status} ${r.text.slice(0, 120)}`),
    ).toEqual([]);
    expect(Math.max(...ledger.answers.map((r) => r.ms))).toBeLessThan(BOUND_MS);
    await reconcile(url, prefix, ledger);
  });
};

// Both variants run every test here; the Redis one with a shorter load.
variant("database counters", false, true, LOAD_MS, tests);
variant("Redis counters", true, false, REDIS_LOAD_MS, tests);
