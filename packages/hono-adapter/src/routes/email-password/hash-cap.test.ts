import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../../test/test-auth.ts";
import { countingHasher, until } from "../../../test/counting-hasher.ts";

// Issue 33, CPU: password hashing is bounded by counts (hashes started), never by timings.

const PASSWORD = "correct horse battery";

async function withUsers(count: number, options: Parameters<typeof createTestAuth>[0] = {}) {
  const hasher = countingHasher();
  const t = createTestAuth({ passwordHasher: hasher, ...options });
  const emails = Array.from({ length: count }, (_, i) => `user${i}@example.com`);
  for (const email of emails) await t.auth.api.createUser({ email, password: PASSWORD });
  hasher.started = 0;
  return { t, hasher, emails };
}

const wrongSignIn = (t: ReturnType<typeof createTestAuth>, email: string, i: number) =>
  t.request("POST", "/sign-in/email", { body: { email, password: "a wrong password" }, ip: `198.51.100.${i + 1}` });

describe("the hash gate (passwordHashing.concurrency / maxQueue)", () => {
  it("runs at most `concurrency` hashes, queues `maxQueue`, and answers the rest 503 BUSY with Retry-After at once", async () => {
    const { t, hasher, emails } = await withUsers(10, { passwordHashing: { concurrency: 2, maxQueue: 3 } });
    hasher.hold = true;
    // The ten createUser hashes of the setup went through the gate too.
    const before = t.auth.core.ctx.hashGate.stats().started;
    const settled: Response[] = [];
    const pending = emails.map((email, i) =>
      wrongSignIn(t, email, i).then((res) => {
        settled.push(res);
        return res;
      }),
    );
    // Two hashes running (held), three waiting at the gate, five refused without hashing.
    await until(() => hasher.started === 2 && settled.length === 5);
    expect(t.auth.core.ctx.hashGate.stats()).toEqual({ running: 2, queued: 3, started: before + 2, refused: 5 });
    for (const res of settled) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.json()).toEqual({ code: "BUSY", message: expect.any(String) });
    }
    hasher.release();
    const all = await Promise.all(pending);
    expect(all.filter((r) => r.status === 401)).toHaveLength(5);
    expect(all.filter((r) => r.status === 503)).toHaveLength(5);
    // Never more than `concurrency` at once, and only the admitted ones were hashed.
    expect(hasher.started).toBe(5);
    expect(t.auth.core.ctx.hashGate.stats()).toEqual({ running: 0, queued: 0, started: before + 5, refused: 5 });
  });

  it("the default concurrency follows the engine (native: the thread pool, at most the CPUs), the queue holds 32, and no shared budget", () => {
    // The harness turns the shared budget off; unset here, so the documented default (none) is resolved.
    const t = createTestAuth({ passwordHashing: { unauthenticatedBudget: undefined } });
    expect(t.auth.core.config.passwordHashing).toEqual({
      concurrency: Math.min(Number(process.env.UV_THREADPOOL_SIZE ?? 4), availableParallelism()),
      maxQueue: 32,
      unauthenticatedBudget: false,
    });
  });
});

describe("the shared budget of unauthenticated hashing routes (passwordHashing.unauthenticatedBudget)", () => {
  it("counts every caller together, not per IP: past it sign-in and sign-up answer 503 BUSY without hashing", async () => {
    const { t, hasher, emails } = await withUsers(5, {
      passwordHashing: { unauthenticatedBudget: { window: "1m", max: 3 } },
    });
    const statuses: number[] = [];
    for (const [i, email] of emails.entries()) statuses.push((await wrongSignIn(t, email, i)).status);
    expect(statuses).toEqual([401, 401, 401, 503, 503]);
    const signUp = await t.request("POST", "/sign-up/email", {
      body: { email: "new@example.com", password: PASSWORD },
      ip: "203.0.113.50",
    });
    expect(signUp.status).toBe(503);
    expect(signUp.headers.get("retry-after")).toBe("60");
    expect(await signUp.json()).toMatchObject({ code: "BUSY" });
    expect(await t.store.users.findByEmail("new@example.com")).toBeNull();
    // Five distinct addresses, one budget: three hashes in all.
    expect(hasher.started).toBe(3);
    expect((await t.counters.peek("rl:hashing:unauthenticated", t.clock.now()))?.count).toBe(6);
    // Trusted server calls and signed-in routes are not counted.
    await expect(t.auth.api.signIn({ email: emails[0]!, password: PASSWORD })).resolves.toMatchObject({
      user: { email: emails[0] },
    });
    expect(hasher.started).toBe(4);
    // The window ends: the budget is back.
    t.clock.advance(60_000);
    expect((await wrongSignIn(t, emails[0]!, 40)).status).toBe(401);
    expect(hasher.started).toBe(5);
  });
});

describe("the dummy hash for unknown accounts", () => {
  it("is not cached when it fails: the next unknown email answers 401 like a known one, not 500", async () => {
    const { t, hasher, emails } = await withUsers(1);
    hasher.failNextHash = true;
    const first = await wrongSignIn(t, "nobody@example.com", 1);
    expect(first.status).toBe(500);
    const again = await wrongSignIn(t, "nobody-else@example.com", 2);
    expect(again.status).toBe(401);
    expect((await wrongSignIn(t, emails[0]!, 3)).status).toBe(401);
    // failed dummy hash, its retry and the verify beside it, then the known account's verify.
    expect(hasher.started).toBe(4);
    // Cached after a success: one more unknown email costs one verify, no new dummy hash.
    expect((await wrongSignIn(t, "third@example.com", 4)).status).toBe(401);
    expect(hasher.started).toBe(5);
  });
});

describe("POST /reset-password hashes only for a live token", () => {
  it("a made-up 43-character token is refused 400 INVALID_TOKEN without a hash; a real one costs one", async () => {
    const { t, hasher, emails } = await withUsers(1);
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/reset-password", {
        body: { token: "A".repeat(42) + String(i), newPassword: "a brand new password" },
        ip: `192.0.2.${i + 1}`,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "INVALID_TOKEN" });
    }
    expect(hasher.started).toBe(0);
    await t.request("POST", "/request-password-reset", { body: { email: emails[0] }, ip: "192.0.2.20" });
    const token = t.auth.getOtp(emails[0]!)!;
    const res = await t.request("POST", "/reset-password", {
      body: { token, newPassword: "a brand new password" },
      ip: "192.0.2.21",
    });
    expect(res.status).toBe(200);
    expect(hasher.started).toBe(1);
    // Spent: the same token again is refused, still without a hash.
    const reused = await t.request("POST", "/reset-password", {
      body: { token, newPassword: "another new password" },
      ip: "192.0.2.22",
    });
    expect(reused.status).toBe(400);
    expect(hasher.started).toBe(1);
  });
});
