import { describe, expect, it, vi } from "vitest";
import { emailOtp, type AuthHooks, type UserView } from "@latchkey/core";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";

// Issue 48 item 20: a hook that fails (throws) writes nothing, so it does not spend the code or link that reached
// it: the user retries with the same one. A refusal (`false`) still spends it. And an OTP sign-in of an address a
// sign-up created at the same moment signs in only a record the hooks saw.

const PASSWORD = "correct horse battery";
let ipSeq = 0;
const ip = () => `198.20.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

async function otpFor(t: TestAuth, email: string): Promise<string> {
  const res = await t.request("POST", "/email-otp/send-verification-otp", {
    body: { email, purpose: "sign-in" },
    ip: ip(),
  });
  expect(res.status).toBe(200);
  return t.auth.getOtp(email) as string;
}

const otpSignIn = (t: TestAuth, email: string, otp: string) =>
  t.request("POST", "/sign-in/email-otp", { body: { email, otp }, ip: ip() });

/** Hooks whose next call throws once (a CRM that is down), or refuses once. */
function flakyHooks(which: keyof AuthHooks) {
  const state = { fail: false, refuse: false };
  const hook = async () => {
    if (state.fail) {
      state.fail = false;
      throw new Error("the CRM is down");
    }
    if (state.refuse) {
      state.refuse = false;
      return false;
    }
    return undefined;
  };
  return { state, hooks: { [which]: hook } as AuthHooks };
}

describe("a hook that fails does not spend the code or link (a refusal does)", () => {
  it.each([["beforeUserCreated"], ["beforeSignIn"]] as const)(
    "OTP sign-in of a new email, %s throws: 500, then the same code signs in",
    async (which) => {
      vi.spyOn(console, "error").mockImplementation(() => undefined);
      const { state, hooks } = flakyHooks(which);
      const t = createTestAuth({ plugins: [emailOtp()], hooks });
      const otp = await otpFor(t, "new@example.com");
      state.fail = true;
      const failed = await otpSignIn(t, "new@example.com", otp);
      expect(failed.status).toBe(500);
      expect(await t.store.users.findByEmail("new@example.com")).toBeNull();
      expect((await otpSignIn(t, "new@example.com", otp)).status).toBe(200);
      vi.restoreAllMocks();
    },
  );

  it("OTP sign-in of a known user, beforeSignIn throws: the same code works; refused: it is spent", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { state, hooks } = flakyHooks("beforeSignIn");
    const t = createTestAuth({ plugins: [emailOtp()], hooks });
    await t.signUp("ada@example.com", PASSWORD);
    let otp = await otpFor(t, "ada@example.com");
    state.fail = true;
    expect((await otpSignIn(t, "ada@example.com", otp)).status).toBe(500);
    expect((await otpSignIn(t, "ada@example.com", otp)).status).toBe(200);
    otp = await otpFor(t, "ada@example.com");
    state.refuse = true;
    expect((await otpSignIn(t, "ada@example.com", otp)).status).toBe(403);
    expect((await otpSignIn(t, "ada@example.com", otp)).status).toBe(400); // spent: INVALID_OTP
    vi.restoreAllMocks();
  });

  it("verification link, beforeSignIn throws: 500, nothing proven, the same link then verifies; refused: it is spent", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { state, hooks } = flakyHooks("beforeSignIn");
    const t = createTestAuth({ hooks });
    const { userId } = await t.signUp("ada@example.com", PASSWORD);
    const link = async () => {
      await t.request("POST", "/send-verification-email", { body: { email: "ada@example.com" }, ip: ip() });
      await t.settle();
      return t.auth.getOtp("ada@example.com") as string;
    };
    const verify = (token: string) =>
      t.request("POST", "/verify-email", { body: { email: "ada@example.com", token }, ip: ip() });
    let token = await link();
    state.fail = true;
    expect((await verify(token)).status).toBe(500);
    expect((await t.store.users.findById(userId))?.emailVerified).toBe(false);
    expect((await verify(token)).status).toBe(200);
    expect((await t.store.users.findById(userId))?.emailVerified).toBe(true);

    const other = await t.signUp("grace@example.com", PASSWORD);
    await t.request("POST", "/send-verification-email", { body: { email: "grace@example.com" }, ip: ip() });
    await t.settle();
    token = t.auth.getOtp("grace@example.com") as string;
    state.refuse = true;
    const again = (tk: string) =>
      t.request("POST", "/verify-email", { body: { email: "grace@example.com", token: tk }, ip: ip() });
    expect((await again(token)).status).toBe(403);
    expect((await again(token)).status).toBe(400);
    expect((await t.store.users.findById(other.userId))?.emailVerified).toBe(false);
    vi.restoreAllMocks();
  });
});

describe("OTP sign-in of an address a sign-up creates at the same moment", () => {
  it("signs in the record that exists, and only after beforeSignIn saw that record", async () => {
    // What beforeSignIn was shown on the OTP path (the sign-up's own beforeSignIn is another path).
    const seen: UserView[] = [];
    let t: TestAuth | null = null;
    let raced = false;
    const t0 = createTestAuth({
      plugins: [emailOtp()],
      hooks: {
        async beforeSignIn(user, context) {
          if (context.path === "sign-in-email-otp") seen.push(user);
          // Between the hooks and the insert, a password sign-up of the same address commits (the attacker's).
          if (context.path === "sign-in-email-otp" && !raced) {
            raced = true;
            const res = await t?.request("POST", "/sign-up/email", {
              body: { email: "race@example.com", password: PASSWORD, name: "Mallory" },
              ip: ip(),
            });
            expect(res?.status).toBe(200);
          }
          return undefined;
        },
      },
    });
    t = t0;
    const otp = await otpFor(t0, "race@example.com");
    const res = await otpSignIn(t0, "race@example.com", otp);
    expect(res.status).toBe(200);
    const signedIn = ((await res.json()) as { user: UserView }).user;
    const existing = await t0.store.users.findByEmail("race@example.com");
    expect(signedIn.id).toBe(existing?.id);
    // The hook saw the record it signed in, with what that record holds (not the draft it was first shown).
    const shown = seen.filter((u) => u.email === "race@example.com" && u.id === signedIn.id);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.some((u) => u.name === "Mallory")).toBe(true);
  });
});
