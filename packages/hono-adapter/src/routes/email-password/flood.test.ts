import { describe, expect, it } from "vitest";
import { createTestAuth, deviceCookieOf, type TestAuth } from "../../../test/test-auth.ts";

// Issue 42, "How it is shown": floods from one IPv6 /48 and from 60 IPv4 /24s, with the default configuration
// (no shared hashing budget, device cookies on). Run on memory, libSQL and PostgreSQL.

const PASSWORD = "correct horse battery";
const DEVICE = "__Host-latchkey.device";
/** 2,400 requests with (cheap) password hashes, on a database: their own time limit. */
const FLOOD_TIMEOUT_MS = 120_000;

/**
 * 10 wrong sign-ins at ada's account and 10 junk sign-ups from each address: the addresses all at once, each one's
 * requests one after another (as many clients as addresses, like the attackers; not more in flight than a database
 * pool is sized for).
 */
async function flood(t: TestAuth, addresses: string[]): Promise<Response[]> {
  const perAddress = await Promise.all(
    addresses.map(async (ip, a) => {
      const answers: Response[] = [];
      for (let i = 0; i < 10; i++) {
        const body = { email: "ada@example.com", password: `guess ${a}-${i}` };
        answers.push(await t.request("POST", "/sign-in/email", { body, ip }));
        const junk = { email: `junk-${a}-${i}@example.net`, password: PASSWORD };
        answers.push(await t.request("POST", "/sign-up/email", { body: junk, ip }));
      }
      return answers;
    }),
  );
  return perAddress.flat();
}

/** Ada (with her device token from a sign-in before the flood) and Bob, an unrelated user. */
async function victims(t: TestAuth): Promise<string> {
  await t.signUp("ada@example.com", PASSWORD);
  await t.signUp("bob@example.com", PASSWORD);
  const res = await t.request("POST", "/sign-in/email", {
    body: { email: "ada@example.com", password: PASSWORD },
    ip: "198.51.100.200",
  });
  return deviceCookieOf(res)!;
}

/**
 * Everything at once overflows the hashing queue: the only 5xx allowed is 503 `BUSY` from the full queue, with
 * `Retry-After` in seconds (overload, not refusal).
 */
async function onlyBusy(answers: Response[]): Promise<void> {
  for (const res of answers.filter((r) => r.status >= 500)) {
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await res.json()) as { code: string }).code).toBe("BUSY");
  }
}

async function afterFlood(t: TestAuth, device: string, attackerIp: string) {
  // An unrelated user, a new device and a new address: signed in at once.
  const bob = await t.request("POST", "/sign-in/email", {
    body: { email: "bob@example.com", password: PASSWORD },
    ip: "192.0.2.44",
  });
  expect(bob.status).toBe(200);
  // Ada's account is locked by the wrong passwords: without her device cookie even the right password is refused...
  const anonymous = await t.request("POST", "/sign-in/email", {
    body: { email: "ada@example.com", password: PASSWORD },
    ip: "192.0.2.45",
  });
  expect(anonymous.status).toBe(429);
  expect(((await anonymous.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
  // ...and with it she signs in at once, even from an address inside the attackers' network.
  const ada = await t.request("POST", "/sign-in/email", {
    body: { email: "ada@example.com", password: PASSWORD },
    headers: { cookie: `${DEVICE}=${device}` },
    ip: attackerIp,
  });
  expect(ada.status).toBe(200);
}

describe("floods confine the attacker, never the user base (issue 42)", () => {
  it(
    "60 addresses of one IPv6 /48: the network spends its own budget; unrelated and known-device sign-ins go through",
    async () => {
      const t = createTestAuth({
        deviceCookies: { enabled: true },
        passwordHashing: { unauthenticatedBudget: undefined },
      });
      const device = await victims(t);
      const addresses = Array.from({ length: 60 }, (_, i) => `2001:db8:77:${(i + 1).toString(16)}::1`);
      const answers = await flood(t, addresses);
      const statuses = answers.map((r) => r.status);
      // The /48 got its per-network budget (6 x 10 sign-ins, 6 x 10 sign-ups), not 60 addresses' (1,200).
      await onlyBusy(answers);
      expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(120);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1080);
      await afterFlood(t, device, "2001:db8:77:ff::9");
    },
    FLOOD_TIMEOUT_MS,
  );

  it(
    "60 IPv4 addresses in 60 /24s, each within its own rules: unrelated and known-device sign-ins go through",
    async () => {
      const t = createTestAuth({
        deviceCookies: { enabled: true },
        passwordHashing: { unauthenticatedBudget: undefined },
      });
      const device = await victims(t);
      const addresses = Array.from({ length: 60 }, (_, i) => `203.${i + 1}.113.7`);
      const answers = await flood(t, addresses);
      await onlyBusy(answers);
      await afterFlood(t, device, "203.1.113.8");
    },
    FLOOD_TIMEOUT_MS,
  );
});
