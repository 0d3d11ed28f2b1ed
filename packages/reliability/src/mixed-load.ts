// The reliability suites' mixed load and its checks: traffic on both instances of the running variant with a
// ledger of what succeeded, the reconciliation of the database against it, and the answers an outage may give.
import { expect } from "vitest";
import { call, json, loadFor, query, sleep, type Answer, type Instance } from "./harness.ts";
import { a, b, PASSWORD, type Sign, variantName } from "./reliability-fixture.ts";

export interface Ledger {
  attempted: Set<string>;
  signedUp: Map<string, string>; // email -> session id
  otpUsers: Map<string, string>;
  answers: Answer[];
}
const newLedger = (): Ledger => ({
  attempted: new Set(),
  signedUp: new Map(),
  otpUsers: new Map(),
  answers: [],
});

/**
 * An outage's answers: each one is a 200, or a 503 DATABASE_UNAVAILABLE with `Retry-After: 5` that `during` places
 * in the outage, and there is at least one 503. Returns the 503s.
 */
export function expectOnlyUnavailableDuring(ledger: Ledger, during: (r: Answer) => boolean): Answer[] {
  const bad = ledger.answers.filter((r) => r.status !== 200 && !(r.status === 503 && during(r)));
  // Status 0: no answer within the client's 15 s (a request hung).
  expect(
    bad.slice(0, 10).map((r) => `${r.status} after ${r.ms} ms ${r.text.slice(0, 120)}`),
    `${bad.length} unexpected answers`,
  ).toEqual([]);
  const unavailable = ledger.answers.filter((r) => r.status === 503);
  expect(unavailable.length).toBeGreaterThan(0);
  for (const r of unavailable) {
    expect(JSON.parse(r.text)).toEqual({ code: "DATABASE_UNAVAILABLE", message: expect.any(String) });
    expect(r.headers?.get("retry-after")).toBe("5");
  }
  return unavailable;
}

/** Checks the database against the successful answers: nothing lost, nothing duplicated, nothing half-written. */
export async function reconcile(url: string, prefix: string, ledger: Ledger): Promise<void> {
  const users = await query<{ id: string; email: string }>(url, "select id, email from users where email like $1", [
    `${prefix}%`,
  ]);
  const accounts = await query<{ user_id: string; provider_id: string; n: string }>(
    url,
    "select a.user_id, a.provider_id, count(*)::text as n from accounts a join users u on u.id = a.user_id where u.email like $1 group by 1, 2",
    [`${prefix}%`],
  );
  const sessions = await query<{ id: string; user_id: string }>(
    url,
    "select s.id, s.user_id from sessions s join users u on u.id = s.user_id where u.email like $1",
    [`${prefix}%`],
  );
  const byEmail = new Map(users.map((u) => [u.email, u.id]));
  const accountsOf = new Map<string, Map<string, number>>();
  for (const a of accounts)
    accountsOf.set(a.user_id, (accountsOf.get(a.user_id) ?? new Map()).set(a.provider_id, Number(a.n)));
  const sessionIds = new Set(sessions.map((s) => s.id));
  const usersWithSession = new Set(sessions.map((s) => s.user_id));
  // Every user comes from a request that was made; none is missing its account or its first session.
  for (const u of users) {
    expect(ledger.attempted.has(u.email), `user ${u.email} from no request`).toBe(true);
    expect(accountsOf.get(u.id)?.size ?? 0, `user ${u.email} without account`).toBeGreaterThan(0);
    expect(usersWithSession.has(u.id), `user ${u.email} without session (half-written sign-up)`).toBe(true);
    for (const [, n] of accountsOf.get(u.id) ?? []) expect(n).toBe(1);
  }
  // Every success the clients saw is in the database.
  for (const [email, sessionId] of ledger.signedUp) {
    const id = byEmail.get(email);
    expect(id, `signed-up ${email} lost`).toBeDefined();
    expect(accountsOf.get(id!)?.get("credential")).toBe(1);
    expect(sessionIds.has(sessionId), `session of ${email} lost`).toBe(true);
  }
  for (const [email, sessionId] of ledger.otpUsers) {
    const id = byEmail.get(email);
    expect(id, `OTP user ${email} lost`).toBeDefined();
    expect(accountsOf.get(id!)?.get("EMAIL_OTP")).toBe(1);
    expect(sessionIds.has(sessionId)).toBe(true);
  }
}

/** Mixed traffic on both instances; records what succeeded. */
function mixedWorker(
  prefix: string,
  ledger: Ledger,
  targets: () => Instance[],
  known: Sign[],
  onAnswer: (r: Answer, i: Instance) => void,
) {
  let seq = 0;
  // Unlimited API keys of users this load signed up, verified as part of the mix (a few are enough).
  const keys: string[] = [];
  return async (lane: number) => {
    const list = targets();
    const instance = list[(lane + seq) % list.length]!;
    const other = list[(lane + seq + 1) % list.length]!;
    const n = seq++;
    const roll = Math.random();
    const record = (r: Answer, i: Instance) => {
      ledger.answers.push(r);
      onAnswer(r, i);
      return r;
    };
    if (roll < 0.3 || known.length === 0) {
      const email = `${prefix}su-${lane}-${n}@example.com`;
      ledger.attempted.add(email);
      const r = record(
        await call(instance, "POST", "/auth/sign-up/email", { body: { email, password: PASSWORD } }),
        instance,
      );
      if (r.status === 200) {
        const s = json<Sign>(r);
        ledger.signedUp.set(email, s.session.id);
        known.push(s);
        if (keys.length < 4) {
          const created = await call(instance, "POST", "/test/api-key", { body: { userId: s.user.id } });
          if (created.status === 200) keys.push(json<{ key: string }>(created).key);
        }
      }
    } else if (roll < 0.4 && keys.length > 0) {
      const key = keys[Math.floor(Math.random() * keys.length)]!;
      const r = record(await call(instance, "POST", "/auth/api-key/verify", { body: { key } }), instance);
      if (r.status === 200) expect(json<{ valid: boolean }>(r).valid, r.text).toBe(true);
    } else if (roll < 0.55) {
      const s = known[Math.floor(Math.random() * known.length)]!;
      const r = record(
        await call(instance, "GET", "/auth/get-session", {
          headers: { authorization: `Bearer ${s.credentials.token}` },
        }),
        instance,
      );
      if (r.status === 200) expect(json<{ user: { id: string } } | null>(r)?.user.id).toBe(s.user.id);
    } else if (roll < 0.75) {
      const emails = [...ledger.signedUp.keys()];
      const email = emails[Math.floor(Math.random() * emails.length)]!;
      record(await call(instance, "POST", "/auth/sign-in/email", { body: { email, password: PASSWORD } }), instance);
    } else {
      const email = `${prefix}otp-${lane}-${n}@example.com`;
      ledger.attempted.add(email);
      const sent = record(
        await call(instance, "POST", "/auth/email-otp/send-verification-otp", {
          body: { email, purpose: "sign-in" },
        }),
        instance,
      );
      if (sent.status !== 200) return;
      const captured = await call(instance, "GET", `/test/otp?email=${encodeURIComponent(email)}`);
      if (captured.status !== 200) return; // the instance is gone (kill -9); its answers were recorded above
      const { otp } = json<{ otp: string | null }>(captured);
      const r = record(await call(other, "POST", "/auth/sign-in/email-otp", { body: { email, otp } }), other);
      if (r.status === 200) ledger.otpUsers.set(email, json<Sign>(r).session.id);
    }
  };
}

/**
 * Mixed traffic (mixedWorker) on `lanes` lanes, its emails under `<label>-<variant>-`, with a ledger of its own:
 * for `durationMs` when given, else until `stopAfter(ms)` lets it run `ms` more and waits for its lanes.
 */
export function startMixedLoad(
  label: string,
  lanes: number,
  options: { durationMs?: number; targets?: () => Instance[]; onAnswer?: (r: Answer, i: Instance) => void } = {},
) {
  const prefix = `${label}-${variantName}-`;
  const ledger = newLedger();
  const worker = mixedWorker(prefix, ledger, options.targets ?? (() => [a, b]), [], options.onAnswer ?? (() => {}));
  let until = Date.now() + (options.durationMs ?? Number.POSITIVE_INFINITY);
  const done = loadFor(0, lanes, worker, () => Date.now() >= until);
  const stopAfter = async (ms: number) => {
    until = Date.now() + ms;
    await done;
  };
  return { prefix, ledger, done, stopAfter };
}

/** Both instances answer /auth/health with 200 again within 10 s of `since`. */
export async function expectHealthyAgain(since: number, after: string): Promise<void> {
  for (const instance of [a, b]) {
    let healthy = false;
    while (!healthy && Date.now() - since < 10_000) {
      healthy = (await call(instance, "GET", "/auth/health")).status === 200;
      if (!healthy) await sleep(200);
    }
    expect(
      healthy,
      `${instance.name} healthy after ${after} (${instance.alive() ? "running" : "the process exited"}); its stderr ends:\n${instance.stderr().slice(-1500)}`,
    ).toBe(true);
  }
}
