import { describe, expect, it } from "vitest";
import { emailOtp, type FullStore, type FullStorePorts } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { storeForTestRun } from "../../test/test-stores.ts";
import { bearer, createTestAuth } from "../../test/test-auth.ts";

// Every multi-row flow commits all of its rows or none: a failure injected at each write (inside the
// transaction the flow opens) leaves the store as it was. Runs on memory, libSQL and PostgreSQL (per project).

type Point = `${keyof FullStorePorts}.${string}`;

/** The store with one port method failing, at the top level and inside transactions, while `armed` says so. */
function failingAt(inner: FullStore, point: Point, state: { armed: boolean }): FullStore {
  const [portName, method] = point.split(".") as [keyof FullStorePorts, string];
  const wrap = (ports: FullStorePorts): FullStorePorts => {
    const port = ports[portName] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const failing = async (...args: unknown[]) => {
      if (state.armed) throw new Error(`injected failure at ${point}`);
      return port[method]!(...args);
    };
    // A proxy, not a spread: the test run's lazy stores are proxies without own keys.
    const broken = new Proxy(port, { get: (target, key) => (key === method ? failing : Reflect.get(target, key)) });
    return { ...ports, [portName]: broken };
  };
  return { ...inner, ...wrap(inner), transaction: (body) => inner.transaction((tx) => body(wrap(tx))) };
}

function setup(point: Point) {
  const state = { armed: false };
  const store = failingAt(storeForTestRun() ?? memoryStore(), point, state);
  const t = createTestAuth({ store, plugins: [emailOtp()] });
  return { ...t, state };
}

const signUp = (t: ReturnType<typeof setup>, email: string) =>
  t.request("POST", "/sign-up/email", { body: { email, password: "long enough pw" } });

describe("sign-up: user + credential account + session", () => {
  for (const point of ["users.create", "sessions.create"] as const) {
    it(`a failure at ${point} leaves no user, and a retry succeeds`, async () => {
      const t = setup(point);
      t.state.armed = true;
      expect((await signUp(t, "ada@example.com")).status).toBe(500);
      expect(await t.store.users.findByEmail("ada@example.com")).toBeNull();
      t.state.armed = false;
      const retry = await signUp(t, "ada@example.com");
      expect(retry.status).toBe(200);
      const { user } = (await retry.json()) as { user: { id: string } };
      expect(await t.store.accounts.listByUser(user.id)).toHaveLength(1);
    });
  }
});

describe("OTP sign-in of a new user: spent code + user + EMAIL_OTP account + session", () => {
  it("a failure at the session insert leaves no user and no account, and the code usable", async () => {
    const t = setup("sessions.create");
    await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "new@example.com", purpose: "sign-in" },
    });
    const otp = t.auth.getOtp("new@example.com");
    t.state.armed = true;
    const res = await t.request("POST", "/sign-in/email-otp", { body: { email: "new@example.com", otp } });
    expect(res.status).toBe(500);
    expect(await t.store.users.findByEmail("new@example.com")).toBeNull();
    // The code is spent in the transaction of the writes it pays for: rolled back with them.
    expect(await t.store.verifications.findByIdentifier("otp:sign-in:new@example.com")).not.toBeNull();
    t.state.armed = false;
    const retry = await t.request("POST", "/sign-in/email-otp", { body: { email: "new@example.com", otp } });
    expect(retry.status).toBe(200);
    expect(await t.store.verifications.findByIdentifier("otp:sign-in:new@example.com")).toBeNull();
    expect((await t.request("POST", "/sign-in/email-otp", { body: { email: "new@example.com", otp } })).status).toBe(
      400,
    );
  });
});

describe("password changes and the sessions they revoke", () => {
  it("change-password with revokeOtherSessions: a failure at the revocation keeps the old password and sessions", async () => {
    const t = setup("sessions.deleteByUser");
    const a = await t.signUp("bob@example.com", "old password 1");
    const other = await t.request("POST", "/sign-in/email", {
      body: { email: "bob@example.com", password: "old password 1" },
    });
    const otherToken = ((await other.json()) as { credentials: { token: string } }).credentials.token;
    t.state.armed = true;
    const res = await t.request("POST", "/change-password", {
      headers: bearer(a.token),
      body: { currentPassword: "old password 1", newPassword: "new password 2", revokeOtherSessions: true },
    });
    expect(res.status).toBe(500);
    t.state.armed = false;
    expect((await t.request("GET", "/get-session", { headers: bearer(otherToken) })).status).toBe(200);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(otherToken) })).json()).not.toBeNull();
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "bob@example.com", password: "old password 1" } }))
        .status,
    ).toBe(200);
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "bob@example.com", password: "new password 2" } }))
        .status,
    ).toBe(401);
  });

  it("OTP reset-password: a failure at the revocation keeps the old password", async () => {
    const t = setup("sessions.deleteByUser");
    await t.signUp("cy@example.com", "old password 1");
    await t.request("POST", "/email-otp/request-password-reset", { body: { email: "cy@example.com" } });
    t.state.armed = true;
    const res = await t.request("POST", "/email-otp/reset-password", {
      body: { email: "cy@example.com", otp: t.auth.getOtp("cy@example.com"), password: "new password 2" },
    });
    expect(res.status).toBe(500);
    t.state.armed = false;
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "cy@example.com", password: "old password 1" } }))
        .status,
    ).toBe(200);
  });
});

describe("mailbox proof and link flows", () => {
  it("OTP sign-in of an unverified user: a failure at the session keeps its password account, sessions and unverified state", async () => {
    const t = setup("sessions.create");
    const first = await t.signUp("eve@example.com", "old password 1");
    await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "eve@example.com", purpose: "sign-in" },
    });
    t.state.armed = true;
    const res = await t.request("POST", "/sign-in/email-otp", {
      body: { email: "eve@example.com", otp: t.auth.getOtp("eve@example.com") },
    });
    expect(res.status).toBe(500);
    t.state.armed = false;
    // The proof (delete other accounts, revoke sessions, mark verified) rolled back with the session insert.
    expect((await t.store.users.findById(first.userId))?.emailVerified).toBe(false);
    expect((await t.store.accounts.listByUser(first.userId)).map((a) => a.providerId)).toEqual(["credential"]);
    expect(await (await t.request("GET", "/get-session", { headers: bearer(first.token) })).json()).not.toBeNull();
  });

  it("email verification by link: a failure at the session leaves the user unverified", async () => {
    const t = setup("sessions.create");
    const { userId } = await t.signUp("fay@example.com");
    await t.request("POST", "/send-verification-email", { body: { email: "fay@example.com" } });
    t.state.armed = true;
    const res = await t.request("POST", "/verify-email", {
      body: { email: "fay@example.com", token: t.auth.getOtp("fay@example.com") },
    });
    expect(res.status).toBe(500);
    expect((await t.store.users.findById(userId))?.emailVerified).toBe(false);
  });

  it("reset-password by link: a failure at the revocation keeps the old password", async () => {
    const t = setup("sessions.deleteByUser");
    await t.signUp("gus@example.com", "old password 1");
    await t.request("POST", "/request-password-reset", { body: { email: "gus@example.com" } });
    t.state.armed = true;
    const res = await t.request("POST", "/reset-password", {
      body: { token: t.auth.getOtp("gus@example.com"), newPassword: "new password 2" },
    });
    expect(res.status).toBe(500);
    t.state.armed = false;
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "gus@example.com", password: "old password 1" } }))
        .status,
    ).toBe(200);
  });
});
