import { describe, expect, it } from "vitest";
import {
  argon2idHasher,
  webCryptoRandom,
  type CounterStore,
  type FullStore,
  type PasswordHasher,
} from "@latchkey/core";
import { databaseUnavailable } from "@latchkey/core/internal";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";

// Review fix 30.1 (lockout counted after the password check) and 32.2 (a failed lock write switched it off).

const PASSWORD = "correct horse battery";
const WRONG = "wrong password!";

/** The test hasher, counting every password check (what a parallel guesser is buying). */
function countingHasher(): PasswordHasher & { checks: number } {
  const inner = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });
  const counted = {
    checks: 0,
    hash: (password: string) => inner.hash(password),
    async verify(hash: string, password: string) {
      counted.checks++;
      return inner.verify(hash, password);
    },
  };
  return counted;
}

const signIn = (t: TestAuth, body: Record<string, string>, ip: string) =>
  t.request("POST", "/sign-in/email", { body, ip });

describe("account lockout under parallel guessing (review fix 30.1)", () => {
  it("200 parallel wrong passwords from 200 addresses check at most maxFailures passwords, then the right one is locked out too", async () => {
    const hasher = countingHasher();
    const t = createTestAuth({ passwordHasher: hasher });
    await t.signUp("ada@example.com");
    hasher.checks = 0;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        signIn(t, { email: "ada@example.com", password: WRONG }, `203.0.${i >> 8}.${i & 255}`),
      ),
    );
    const statuses = answers.map((r) => r.status);
    // No in-flight margin: the counter hit numbers every attempt before its password is checked.
    expect(hasher.checks).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 401).length).toBe(hasher.checks);
    expect(statuses.filter((s) => s === 429).length).toBe(200 - hasher.checks);
    const right = await signIn(t, { email: "ada@example.com", password: PASSWORD }, "198.51.100.7");
    expect(right.status).toBe(429);
    expect((await right.json()).code).toBe("ACCOUNT_LOCKED");
    expect(hasher.checks).toBeLessThanOrEqual(5);
  });

  it("two instances over one store share the budget: 2 x 100 parallel wrong passwords check at most maxFailures", async () => {
    const hasherA = countingHasher();
    const hasherB = countingHasher();
    const a = createTestAuth({ passwordHasher: hasherA });
    const b = createTestAuth({ passwordHasher: hasherB, store: a.store });
    await a.signUp("ada@example.com");
    hasherA.checks = 0;
    const guesses = (t: TestAuth, net: number) =>
      Array.from({ length: 100 }, (_, i) =>
        signIn(t, { email: "ada@example.com", password: WRONG }, `10.${net}.${i >> 8}.${i & 255}`),
      );
    const answers = await Promise.all([...guesses(a, 1), ...guesses(b, 2)]);
    expect(hasherA.checks + hasherB.checks).toBeLessThanOrEqual(5);
    expect(answers.filter((r) => r.status === 429).length).toBe(200 - hasherA.checks - hasherB.checks);
    expect((await signIn(b, { email: "ada@example.com", password: PASSWORD }, "198.51.100.8")).status).toBe(429);
  });

  it("the email and the username of one account share one lockout (no doubled guesses)", async () => {
    const hasher = countingHasher();
    const t = createTestAuth({ passwordHasher: hasher });
    await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    for (let i = 0; i < 3; i++)
      expect((await signIn(t, { email: "ada@example.com", password: WRONG }, `203.0.113.${i}`)).status).toBe(401);
    for (let i = 3; i < 5; i++)
      expect((await signIn(t, { username: "ada", password: WRONG }, `203.0.113.${i}`)).status).toBe(401);
    hasher.checks = 0;
    const byName = await signIn(t, { username: "ada", password: PASSWORD }, "203.0.113.50");
    expect(byName.status).toBe(429);
    expect((await signIn(t, { email: "ada@example.com", password: PASSWORD }, "203.0.113.51")).status).toBe(429);
    expect(hasher.checks).toBe(0);
  });

  it("an unknown email keeps its own lockout key, and is locked like a real account", async () => {
    const t = createTestAuth();
    for (let i = 0; i < 5; i++)
      expect((await signIn(t, { email: "nobody@example.com", password: WRONG }, `203.0.113.${i}`)).status).toBe(401);
    expect((await signIn(t, { email: "nobody@example.com", password: WRONG }, "203.0.113.9")).status).toBe(429);
    expect(await t.counters.peek("lock:email:nobody@example.com", t.clock.now())).not.toBeNull();
  });
});

/** The run's store with counters whose first `lock:` write fails like an unreachable database. */
function failingFirstLockWrite(store: FullStore): FullStore & { failed: number } {
  const counters: CounterStore = {
    ...store.counters,
    hit: async (key, windowMs, now) => {
      if (key.startsWith("lock:") && wrapped.failed === 0) {
        wrapped.failed++;
        throw databaseUnavailable(new Error("lock write lost"));
      }
      return store.counters.hit(key, windowMs, now);
    },
    peek: (key, now) => store.counters.peek(key, now),
    delete: (key) => store.counters.delete(key),
    rename: (from, to) => store.counters.rename(from, to),
  };
  const wrapped: FullStore & { failed: number } = { ...store, counters, failed: 0 };
  return wrapped;
}

describe("a lost lock write (review fix 32.2)", () => {
  it("one failed lock write does not switch the lockout off: 12 wrong passwords then the right one is still locked", async () => {
    const base = createTestAuth();
    const store = failingFirstLockWrite(base.store);
    const t = createTestAuth({ store });
    await t.signUp("ada@example.com");
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await signIn(t, { email: "ada@example.com", password: WRONG }, `203.0.113.${i}`)).status);
    expect(store.failed).toBe(1);
    // Four wrong passwords, the fifth whose lock write failed (503), then locked without a password check.
    expect(statuses).toEqual([401, 401, 401, 401, 503, ...Array(7).fill(429)]);
    const right = await signIn(t, { email: "ada@example.com", password: PASSWORD }, "203.0.113.99");
    expect(right.status).toBe(429);
    expect((await right.json()).code).toBe("ACCOUNT_LOCKED");
  });
});
