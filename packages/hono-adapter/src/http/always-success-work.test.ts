import { describe, expect, it } from "vitest";
import { auditLog, emailOtp, magicLink, type AuthPlugin, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { storeForTestRun } from "../../test/test-stores.ts";
import { cookieHeaders, createTestAuth } from "../../test/test-auth.ts";

// Review fix 8: the "always success" endpoints did extra store writes for registered addresses (a verification
// row, an audit row), about 5 ms more per call at a 2 ms database round trip: timing told registered emails from
// unknown ones. Issue 50 item 4: the send limits ran only for eligible addresses, sign-in read one more row for a
// known user, and with `requireVerifiedForSignIn` sign-up's branches did different store work (issue 48 item 15:
// 3-5 more round trips for a new email). Now both branches of each make the same store calls, counted here port
// by port, every port (counters and the transaction's ports included; no timing assertion). The email send limits
// and the per-IP rules run with their defaults. bench/src/micro/always-success.ts measures the medians. Runs on
// memory, libSQL and PostgreSQL (per project).

const PORTS = ["users", "accounts", "sessions", "verifications", "counters", "audit"] as const;

/** The run's store, recording every call of its ports (inside transactions too) as `port.method`. */
function countingStore() {
  const inner = storeForTestRun() ?? memoryStore();
  const calls: string[] = [];
  const counted = <P extends object>(name: string, port: P): P =>
    new Proxy(port, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(`${name}.${String(key)}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const withCounted = <S extends object>(ports: S): S => {
    const out: Record<string, unknown> = { ...(ports as Record<string, unknown>) };
    for (const port of PORTS) {
      const inner = (ports as Record<string, unknown>)[port];
      if (inner) out[port] = counted(port, inner as object);
    }
    return out as S;
  };
  const store: FullStore = {
    ...withCounted(inner),
    transaction: (body) => {
      calls.push("transaction");
      return inner.transaction((tx) => body(withCounted(tx)));
    },
  };
  const take = () => calls.splice(0);
  return { store, take };
}

/** Calls per port; and, for the counters, the methods in order (a `hitGated` is not a `hit`). */
function work(calls: string[]) {
  const perPort: Record<string, number> = {};
  for (const call of calls) {
    const port = call.split(".")[0]!;
    perPort[port] = (perPort[port] ?? 0) + 1;
  }
  return { perPort, counters: calls.filter((c) => c.startsWith("counters.")) };
}

const LIMITS = { email: { perRecipient: undefined, resendCooldown: undefined, recipientCap: undefined } } as const;

interface Case {
  name: string;
  plugins?: AuthPlugin[];
  options?: Record<string, unknown>;
  /** Makes the registered (or taken) address exist; answers headers for the requests (a session), if any. */
  prepare(t: ReturnType<typeof createTestAuth>): Promise<Record<string, string>>;
  path: string;
  body(email: string): unknown;
  /** The answer both branches give. */
  status: number;
}

const signUpCase = (name: string): Case => ({
  name,
  options: { emailVerification: { requireVerifiedForSignIn: true } },
  async prepare(t) {
    await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
      ip: "203.0.113.50",
    });
    // Away from that sign-up's cooldown (a minute) and the notice window of the first notice (an hour).
    t.clock.advance(61 * 60_000);
    return {};
  },
  path: "/sign-up/email",
  body: (email) => ({ email, password: "another long passphrase" }),
  status: 200,
});

const cases: Case[] = [
  ...(
    [
      ["/request-password-reset", (email: string) => ({ email })],
      ["/send-verification-email", (email: string) => ({ email })],
      ["/email-otp/send-verification-otp", (email: string) => ({ email, purpose: "password-reset" })],
      ["/email-otp/send-verification-otp", (email: string) => ({ email, purpose: "email-verification" })],
      ["/email-otp/request-password-reset", (email: string) => ({ email })],
    ] as const
  ).map(
    ([path, body]): Case => ({
      name: `${path} ${JSON.stringify(body("x"))}`,
      prepare: async (t) => (await t.signUp("ada@example.com"), {}),
      path,
      body,
      status: 200,
    }),
  ),
  {
    name: "/email-otp/send-verification-otp sign-in with allowSignUp: false",
    plugins: [emailOtp({ allowSignUp: false }), auditLog()],
    prepare: async (t) => (await t.signUp("ada@example.com"), {}),
    path: "/email-otp/send-verification-otp",
    body: (email) => ({ email, purpose: "sign-in" }),
    status: 200,
  },
  {
    // With sign-up off only registered addresses get a link (with it on, every address does).
    name: "/sign-in/magic-link with allowSignUp: false",
    plugins: [emailOtp(), magicLink({ allowSignUp: false }), auditLog()],
    prepare: async (t) => (await t.signUp("ada@example.com"), {}),
    path: "/sign-in/magic-link",
    body: (email) => ({ email }),
    status: 200,
  },
  {
    name: "/email-otp/request-email-change to a taken and a free address",
    plugins: [emailOtp({ emailChange: { enabled: true } }), auditLog()],
    async prepare(t) {
      await t.signUp("ada@example.com");
      const { token } = await t.signUp("grace@example.com");
      return cookieHeaders(token);
    },
    path: "/email-otp/request-email-change",
    body: (email) => ({ newEmail: email }),
    status: 200,
  },
  {
    name: "/sign-in/email with a wrong password, for a known and an unknown address",
    prepare: async (t) => (await t.signUp("ada@example.com"), {}),
    path: "/sign-in/email",
    body: (email) => ({ email, password: "not the password" }),
    status: 401,
  },
  signUpCase("/sign-up/email with requireVerifiedForSignIn, for a taken and a new address"),
];

describe("enumeration-safe endpoints do the same store work for registered and unknown addresses", () => {
  for (const c of cases) {
    it(`${c.name}: the same calls on every port, counters included`, async () => {
      const { store, take } = countingStore();
      const t = createTestAuth({
        store,
        plugins: c.plugins ?? [emailOtp(), auditLog()],
        ...LIMITS,
        rateLimit: { enabled: true },
        ...c.options,
      });
      const headers = await c.prepare(t);
      take();
      const registered = await t.request("POST", c.path, {
        body: c.body("ada@example.com"),
        ip: "198.51.100.7",
        headers,
      });
      expect(registered.status).toBe(c.status);
      const registeredWork = work(take());
      const unknown = await t.request("POST", c.path, {
        body: c.body("nobody@example.com"),
        ip: "198.51.100.8",
        headers,
      });
      expect(unknown.status).toBe(c.status);
      expect(await unknown.json()).toEqual(await registered.json());
      const unknownWork = work(take());
      // Not vacuous: the counters (per-IP rule, send limits or lockout) and an audit row are in both.
      expect(registeredWork.counters.length).toBeGreaterThan(1);
      expect(registeredWork.perPort.audit).toBeGreaterThan(0);
      expect(unknownWork).toEqual(registeredWork);
    });
  }
});
