import {
  argon2idHasher,
  webCryptoRandom,
  type EmailMessage,
  type AuthPlugin,
  type EmailSender,
  type CounterStore,
  type FullStore,
} from "@latchkey/core";
import { createTestClock } from "@latchkey/core/internal";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth, type Auth, type CreateAuthOptions } from "../src/create-auth.ts";
import { storeForTestRun } from "./test-stores.ts";

export const TEST_SECRET = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
export const BASE_URL = "https://app.example";

/**
 * An email sender that keeps messages for assertions. Like a real provider it answers later (a timer), so a test
 * sees a background email only after `settle()` awaits the request's `waitUntil` work.
 */
function captureEmails(): EmailSender & { sent: EmailMessage[]; last(to?: string): EmailMessage | undefined } {
  const sent: EmailMessage[] = [];
  return {
    sent,
    async send(message) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      sent.push(message);
    },
    last(to) {
      return [...sent].reverse().find((m) => to === undefined || m.to === to);
    },
  };
}

export interface TestAuth<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> {
  auth: Auth<P>;
  store: FullStore;
  /**
   * The counters as core sees them: `peek("lock:email:ada@example.com", now)` finds the record the store keeps
   * under the keyed hash of that key (`t.store.counters` holds only the hashed keys).
   */
  counters: CounterStore;
  clock: ReturnType<typeof createTestClock>;
  emails: ReturnType<typeof captureEmails>;
  /** Calls the standalone handler (mounted at /auth) with JSON and optional headers. */
  request(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; ip?: string },
  ): Promise<Response>;
  /** Waits for the background work (emails) every request so far handed to `waitUntil`. */
  settle(): Promise<void>;
  /** Signs up and returns the session token and the user id. */
  signUp(
    email: string,
    password?: string,
    extra?: Record<string, unknown>,
  ): Promise<{ token: string; userId: string; cookie: string }>;
}

/**
 * A fully wired auth for HTTP tests: a fresh store of the run's kind (`LATCHKEY_TEST_STORE`: memory, sqlite or
 * postgres; or `store`), movable clock, captured emails,
 * cheap argon2id parameters, client IP from the `x-test-ip` header, no per-recipient email limits and no shared
 * hashing budget.
 */
export function createTestAuth<const P extends readonly AuthPlugin[] = []>(
  testOptions: Partial<Omit<CreateAuthOptions<P>, "database">> & { store?: FullStore } = {},
): TestAuth<P> {
  const clock = createTestClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const emails = captureEmails();
  // `store` is this helper's own key: createAuth rejects keys it does not know.
  const { store: given, ...overrides } = testOptions;
  const store = given ?? storeForTestRun() ?? memoryStore();
  const auth = createAuth({
    secret: TEST_SECRET,
    baseUrl: BASE_URL,
    clock,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    getClientIp: (request) => request.headers.get("x-test-ip") ?? "192.0.2.1",
    captureOtp: true,
    ...overrides,
    database: store,
    // Tests send to one address many times in a row: the per-recipient limits are off unless a test turns them on
    // (routes/email-limits tests run them with the documented defaults).
    email: { sender: emails, perRecipient: false, resendCooldown: false, recipientCap: false, ...overrides.email },
    // Likewise the budget every caller shares for unauthenticated hashing: suites that sign up hundreds of users
    // within one frozen minute would meet it (routes/email-password/hash-cap tests run it).
    passwordHashing: { unauthenticatedBudget: false, ...overrides.passwordHashing },
    // Device cookies add a second Set-Cookie to every sign-in answer: suites that read the session cookie alone
    // run without them (routes/email-password/device-cookies and the flood tests run the default, on).
    deviceCookies: { enabled: false, ...overrides.deviceCookies },
  });
  const request: TestAuth<P>["request"] = (method, path, init = {}) => {
    const headers: Record<string, string> = { ...(init.ip ? { "x-test-ip": init.ip } : {}), ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    return auth.handler(new Request(`${BASE_URL}/auth${path}`, { method, headers, body }), {}, executionCtx);
  };
  // Background sends are collected like a runtime's waitUntil would, so tests await them instead of guessing.
  const background: Promise<unknown>[] = [];
  const executionCtx = {
    waitUntil: (p: Promise<unknown>) => void background.push(p),
    passThroughOnException: () => undefined,
  };
  return {
    auth,
    store,
    counters: auth.core.ctx.store.counters,
    clock,
    emails,
    request,
    async settle() {
      while (background.length) await Promise.all(background.splice(0));
    },
    async signUp(email, password = "correct horse battery", extra = {}) {
      const res = await request("POST", "/sign-up/email", {
        body: { email, password, ...extra },
        // A random address in a random network: suites sign up many users, and each network has its own budget.
        ip: `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      });
      if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
      const json = (await res.json()) as { credentials: { token: string }; user: { id: string } };
      return { token: json.credentials.token, userId: json.user.id, cookie: res.headers.get("set-cookie") ?? "" };
    },
  };
}

/**
 * The `i`-th of many client addresses, each in a network of its own (10.x.y.1, one per IPv4 /24): for tests that
 * spread requests over addresses to stay under per-address rules without meeting the per-network ones.
 *
 * @example
 * t.request("POST", "/sign-in/email", { body, ip: networkIp(i) });
 */
export const networkIp = (i: number) => `10.${(i >> 8) & 255}.${i & 255}.1`;

/** `Authorization: Bearer` headers for a token. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Session cookie headers, with a trusted Origin (CSRF) unless `origin` is given. */
export const cookieHeaders = (token: string, origin: string | null = BASE_URL, secure = true) => ({
  cookie: `${secure ? "__Host-latchkey.session" : "latchkey.session"}=${token}`,
  ...(origin === null ? {} : { origin }),
});

/**
 * A `TestAuth` whose `auth.api` has a plugin's methods, for helpers shared by tests that install that plugin.
 *
 * @example
 * async function rows(t: TestAuthWith<AuditLogApi>) { return t.auth.api.listAuditEvents(); }
 */
export type TestAuthWith<Api> = TestAuth & { auth: { api: Api } };

/** The device token an answer's `__Host-latchkey.device` cookie sets, or null. */
export function deviceCookieOf(res: Response): string | null {
  const name = "__Host-latchkey.device=";
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(name));
  return cookie ? cookie.slice(name.length, cookie.indexOf(";")) : null;
}
