import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  AuthError,
  emailOtp,
  magicLink,
  oauth,
  passkeys,
  PASSKEYS_PLUGIN_ID,
  type AuthHooks,
  type FullStore,
  type SignInPath,
  type UserCreationPath,
} from "@latchkey/core";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { authorizeAt, startTestOidcProvider, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { deliver, exampleId, PROVIDER, REDIRECT_URI, startFlow } from "../../../test/routes/oauth/social-test-kit.ts";

let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startTestOidcProvider([REDIRECT_URI]);
});
afterAll(async () => {
  await idp.close();
});

const PASSWORD = "correct horse battery";
let ipSeq = 0;
const ip = () => `198.19.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;
const flush = () => new Promise((r) => setTimeout(r, 0));

type Calls = Array<{ hook: "beforeUserCreated" | "beforeSignIn"; path: string; email: string }>;

/**
 * Hooks that record their calls and check, when called, that nothing was written yet: no user with that email
 * (beforeUserCreated) and no session beyond the ones that existed (beforeSignIn).
 */
function recordingHooks(store: () => FullStore, calls: Calls, answer: { signUp?: unknown; signIn?: unknown } = {}) {
  const sessionsBefore = new Map<string, string[]>();
  const hooks: AuthHooks = {
    async beforeUserCreated(user, context) {
      calls.push({ hook: "beforeUserCreated", path: context.path, email: user.email });
      expect(await store().users.findByEmail(user.email)).toBeNull();
      return answer.signUp as undefined;
    },
    async beforeSignIn(user, context) {
      calls.push({ hook: "beforeSignIn", path: context.path, email: user.email });
      sessionsBefore.set(
        user.id,
        (await store().sessions.listByUser(user.id)).map((s) => s.id),
      );
      return answer.signIn as undefined;
    },
  };
  return { hooks, sessionsBefore };
}

/** Sends a magic link to `email` and answers the call that spends it. */
async function magicLinkFlow(t: TestAuth, email: string) {
  const res = await t.request("POST", "/sign-in/magic-link", { body: { email }, ip: ip() });
  expect(res.status).toBe(200);
  await flush();
  const token = t.auth.getOtp(email)!;
  return () => t.request("POST", "/magic-link/verify", { body: { token }, ip: ip() });
}

async function sendOtp(t: TestAuth, email: string) {
  const res = await t.request("POST", "/email-otp/send-verification-otp", {
    body: { email, purpose: "sign-in" },
    ip: ip(),
  });
  expect(res.status).toBe(200);
  return t.auth.getOtp(email)!;
}

/**
 * A social sign-in at the test provider (its verified email, a trusted provider): the callback's redirect as an
 * answer of the tables' shape: 200 with the session on success, the error code (and 403 for the hooks' refusals).
 */
const socialFlow = (existing: boolean): Flow => ({
  existing,
  get options() {
    return { plugins: [oauth({ providers: [exampleId(idp)], accountLinking: { trustedProviders: [PROVIDER] } })] };
  },
  setup: async (t, email) => {
    t.clock.set(Date.now());
    const { url, stateCookie } = await startFlow(t);
    idp.login({ sub: `sub-${email}`, email, email_verified: true });
    const callback = await authorizeAt(url);
    return async () => {
      const res = await deliver(t, callback, stateCookie);
      const code = new URL(res.headers.get("location")!).searchParams.get("error");
      const session = res.headers.getSetCookie().find((l) => l.startsWith(t.auth.core.config.cookies.name));
      if (code !== null)
        return new Response(JSON.stringify({ code }), { status: code.endsWith("_REJECTED") ? 403 : 500 });
      const me = await t.request("GET", "/get-session", { headers: { cookie: session!.split(";")[0]! } });
      return new Response(await me.text(), { status: 200, headers: { "set-cookie": session! } });
    };
  },
});

interface Flow {
  /** Prepares what the path needs (an existing user, a code, a link) and returns the call of the path itself. */
  setup(t: TestAuth, email: string): Promise<() => Promise<Response | { status: number; code?: string }>>;
  /** Needs the user to exist before the path runs. */
  existing: boolean;
  options?: Parameters<typeof createTestAuth>[0];
}

/** Every path that creates a user. A path added to core without the hook fails the source scan below. */
const USER_CREATION: Record<UserCreationPath, Flow> = {
  "sign-up-email": {
    existing: false,
    setup: async (t, email) => () =>
      t.request("POST", "/sign-up/email", { body: { email, password: PASSWORD }, ip: ip() }),
  },
  "sign-in-email-otp": {
    existing: false,
    options: { plugins: [emailOtp()] },
    setup: async (t, email) => {
      const otp = await sendOtp(t, email);
      return () => t.request("POST", "/sign-in/email-otp", { body: { email, otp }, ip: ip() });
    },
  },
  "sign-in-magic-link": {
    existing: false,
    options: { plugins: [magicLink()] },
    setup: magicLinkFlow,
  },
  "sign-in-social": socialFlow(false),
  "sign-up-passkey": {
    existing: false,
    options: { plugins: [passkeys({ rpId: "app.example", rpName: "Example", allowPasskeyOnlyAccounts: true })] },
    setup: async (t, email) => {
      const res = await t.request("POST", "/passkey/sign-up/options", { body: { email }, ip: ip() });
      const { options, challengeToken } = (await res.json()) as {
        options: Parameters<SoftwareAuthenticator["create"]>[0];
        challengeToken: string;
      };
      const response = await new SoftwareAuthenticator({ origin: "https://app.example" }).create(options);
      return () => t.request("POST", "/passkey/sign-up/verify", { body: { response, challengeToken }, ip: ip() });
    },
  },
  "create-user": {
    existing: false,
    setup: async (t, email) => async () => {
      try {
        await t.auth.api.createUser({ email, password: PASSWORD });
        return { status: 200 };
      } catch (error) {
        if (error instanceof AuthError)
          return { status: error.code === "SIGN_UP_REJECTED" ? 403 : 500, code: error.code };
        throw error;
      }
    },
  },
};

/** Every path that creates a session. */
const SIGN_IN: Record<SignInPath, Flow> = {
  "sign-up-email": USER_CREATION["sign-up-email"],
  "sign-up-passkey": USER_CREATION["sign-up-passkey"],
  "sign-in-email": {
    existing: true,
    setup: async (t, email) => () =>
      t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD }, ip: ip() }),
  },
  "sign-in-email-otp": {
    existing: true,
    options: { plugins: [emailOtp()] },
    setup: async (t, email) => {
      const otp = await sendOtp(t, email);
      return () => t.request("POST", "/sign-in/email-otp", { body: { email, otp }, ip: ip() });
    },
  },
  "sign-in-magic-link": {
    existing: true,
    options: { plugins: [magicLink()] },
    setup: magicLinkFlow,
  },
  "sign-in-social": socialFlow(true),
  "sign-in-passkey": {
    existing: true,
    options: { plugins: [passkeys({ rpId: "app.example", rpName: "Example" })] },
    setup: async (t, email) => {
      // The passkey is registered through the service (no sign-in, so no hook call before the one tested).
      const { service } = t.auth.core.plugins.get(PASSKEYS_PLUGIN_ID)!;
      const user = (await t.store.users.findByEmail(email))!;
      const device = new SoftwareAuthenticator({ origin: "https://app.example" });
      const creation = await service.registrationOptions(user);
      const meta = { ip: null, userAgent: null };
      await service.register(user, { token: creation.token, response: await device.create(creation.options) }, meta);
      const { options, token } = await service.authenticationOptions({});
      const response = await device.get(options);
      return () =>
        t.request("POST", "/passkey/authenticate/verify", { body: { response, challengeToken: token }, ip: ip() });
    },
  },
  "verify-email": {
    existing: true,
    setup: async (t, email) => {
      await t.request("POST", "/send-verification-email", { body: { email }, ip: ip() });
      await flush();
      const token = t.auth.getOtp(email)!;
      return () => t.request("POST", "/verify-email", { body: { email, token }, ip: ip() });
    },
  },
};

async function userCount(t: TestAuth, email: string) {
  return (await t.store.users.findByEmail(email)) ? 1 : 0;
}

describe("hooks on every user-creating path", () => {
  it.each(Object.entries(USER_CREATION))("%s: runs beforeUserCreated before the insert", async (path, flow) => {
    const calls: Calls = [];
    let t: TestAuth | null = null;
    const { hooks } = recordingHooks(() => t!.store, calls);
    t = createTestAuth({ ...flow.options, hooks });
    const call = await flow.setup(t, "new@example.com");
    const res = await call();
    expect(res.status).toBe(200);
    expect(calls.filter((c) => c.hook === "beforeUserCreated")).toEqual([
      { hook: "beforeUserCreated", path, email: "new@example.com" },
    ]);
    expect(await userCount(t, "new@example.com")).toBe(1);
  });

  it.each(Object.entries(USER_CREATION))(
    "%s: false refuses with 403 SIGN_UP_REJECTED and writes nothing",
    async (_, flow) => {
      const calls: Calls = [];
      let t: TestAuth | null = null;
      const { hooks } = recordingHooks(() => t!.store, calls, { signUp: false });
      t = createTestAuth({ ...flow.options, hooks });
      const call = await flow.setup(t, "new@example.com");
      const res = await call();
      expect(res.status).toBe(403);
      const code = "json" in res ? ((await res.json()) as { code: string }).code : res.code;
      expect(code).toBe("SIGN_UP_REJECTED");
      expect(await userCount(t, "new@example.com")).toBe(0);
      expect(calls.some((c) => c.hook === "beforeSignIn")).toBe(false);
    },
  );
});

describe("hooks on every session-creating path", () => {
  it.each(Object.entries(SIGN_IN))("%s: runs beforeSignIn before the session exists", async (path, flow) => {
    const calls: Calls = [];
    let t: TestAuth | null = null;
    const { hooks, sessionsBefore } = recordingHooks(() => t!.store, calls);
    t = createTestAuth({ ...flow.options, hooks });
    if (flow.existing) await t.signUp("ada@example.com", PASSWORD);
    calls.length = 0;
    const call = await flow.setup(t, "ada@example.com");
    const res = (await call()) as Response;
    expect(res.status).toBe(200);
    expect(calls.filter((c) => c.hook === "beforeSignIn")).toEqual([
      { hook: "beforeSignIn", path, email: "ada@example.com" },
    ]);
    const user = (await t.store.users.findByEmail("ada@example.com"))!;
    // The new session exists now and did not when the hook ran: the hook came first.
    const { session } = (await res.json()) as { session: { id: string } };
    expect((await t.store.sessions.listByUser(user.id)).map((s) => s.id)).toContain(session.id);
    expect(sessionsBefore.get(user.id) ?? []).not.toContain(session.id);
  });

  it.each(Object.entries(SIGN_IN))(
    "%s: false refuses with 403 SIGN_IN_REJECTED and creates no session",
    async (_, flow) => {
      let refuse = false;
      const t = createTestAuth({
        ...flow.options,
        hooks: { beforeSignIn: () => !refuse },
      });
      const existing = flow.existing ? await t.signUp("ada@example.com", PASSWORD) : null;
      refuse = true;
      const before = existing ? (await t.store.sessions.listByUser(existing.userId)).length : 0;
      const call = await flow.setup(t, "ada@example.com");
      const res = (await call()) as Response;
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("SIGN_IN_REJECTED");
      expect(res.headers.get("set-cookie")).toBeNull();
      const user = await t.store.users.findByEmail("ada@example.com");
      if (existing) expect((await t.store.sessions.listByUser(existing.userId)).length).toBe(before);
      // A sign-up refused at sign-in writes no user either.
      else expect(user).toBeNull();
    },
  );
});

// The source scan that keeps the tables above complete: every place core inserts a user or creates a session
// must be a path of the tables, in a file that calls the hook. A new path without the hook fails here.
describe("the tables list every path", () => {
  const root = new URL("../../../../core/src/", import.meta.url).pathname;
  const files = (dir: string, prefix = ""): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return files(full, `${prefix}${name}/`);
      return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [`${prefix}${name}`] : [];
    });
  // The store plumbing itself (the session service, the sign-in gate and the D1-style compensation) is not a path.
  const plumbing = new Set(["session/session.ts", "session/sign-in-gate.ts", "ports/compensation.ts"]);
  const sites = (pattern: RegExp) =>
    Object.fromEntries(
      files(root)
        .filter((f) => !plumbing.has(f))
        .map((f) => [f, [...readFileSync(join(root, f), "utf8").matchAll(pattern)].length] as const)
        .filter(([, n]) => n > 0),
    );

  it("user inserts: one per path of USER_CREATION, each in a file that runs beforeUserCreated", () => {
    const found = sites(/\.users\.create\(/g);
    // insertUser (sign-up-email and create-user), the OTP sign-in's and the magic link's createUser, the social
    // sign-up, the passkey sign-up.
    expect(found).toEqual({
      "email-password/sign-up.ts": 1,
      "email-otp/email-otp.ts": 1,
      "magic-link/magic-link.ts": 1,
      "oauth/oauth.ts": 1,
      "passkey/sign-up.ts": 1,
    });
    expect(Object.keys(USER_CREATION).sort()).toEqual([
      "create-user",
      "sign-in-email-otp",
      "sign-in-magic-link",
      "sign-in-social",
      "sign-up-email",
      "sign-up-passkey",
    ]);
    for (const file of Object.keys(found))
      expect(readFileSync(join(root, file), "utf8"), file).toMatch(/hooks\.beforeUserCreated\(/);
  });

  it("session creations: one per path of SIGN_IN, each in a file that runs beforeSignIn", () => {
    // A session is created directly (`sessions.create`) or at the end of a first factor (`signInOrChallenge`, which
    // creates it unless a second step is due). The second step (two-factor/sign-in-step.ts) finishes a sign-in
    // whose first step ran the hook: it is one creation without its own. The other is an admin's impersonation
    // (admin/admin.ts): no sign-in of the user, so not the app's sign-in hook; the store still refuses a banned user.
    const found = sites(/\.sessions\.create\(|signInOrChallenge\(\w+, /g);
    expect(found).toEqual({
      "admin/admin.ts": 1,
      "email-password/email-password.ts": 1,
      "email-password/sign-up.ts": 1,
      "email-otp/email-otp.ts": 1,
      "email-verification/email-verification.ts": 1,
      "magic-link/magic-link.ts": 1,
      "two-factor/sign-in-step.ts": 1,
      "oauth/oauth.ts": 3,
      "passkey/sign-in.ts": 1,
      "passkey/sign-up.ts": 1,
    });
    expect(readFileSync(join(root, "two-factor/sign-in-step.ts"), "utf8")).toMatch(/PENDING_SIGN_IN_PREFIX/);
    // Only four make a session without asking the sign-in gate: the two sign-ups (a new user has no second factor),
    // the second step itself and an admin's impersonation. Every sign-in, social included, goes through the gate.
    expect(sites(/\.sessions\.create\(/g)).toEqual({
      "admin/admin.ts": 1,
      "email-password/sign-up.ts": 1,
      "passkey/sign-up.ts": 1,
      "two-factor/sign-in-step.ts": 1,
    });
    delete found["two-factor/sign-in-step.ts"];
    delete found["admin/admin.ts"];
    expect(Object.keys(SIGN_IN).sort()).toEqual([
      "sign-in-email",
      "sign-in-email-otp",
      "sign-in-magic-link",
      "sign-in-passkey",
      "sign-in-social",
      "sign-up-email",
      "sign-up-passkey",
      "verify-email",
    ]);
    for (const file of Object.keys(found)) {
      const text = readFileSync(join(root, file), "utf8");
      expect([...text.matchAll(/hooks\.beforeSignIn\(/g)].length, file).toBe(found[file]);
    }
  });
});

describe("hook answers", () => {
  afterEach(() => vi.restoreAllMocks());

  it("an amendment changes the user before the insert; the context carries ip and user agent", async () => {
    const contexts: unknown[] = [];
    const t = createTestAuth({
      hooks: {
        beforeUserCreated: async (user, context) => {
          contexts.push(context);
          return { name: `${user.name} (${user.email})`, username: "Ada_L", metadata: { crm: "c-1" } };
        },
      },
    });
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: PASSWORD, name: "Ada" },
      headers: { "user-agent": "Browser/1" },
      ip: "203.0.113.77",
    });
    expect(res.status).toBe(200);
    const stored = (await t.store.users.findByEmail("ada@example.com"))!;
    expect(stored).toMatchObject({ name: "Ada (ada@example.com)", username: "ada_l", metadata: { crm: "c-1" } });
    expect(contexts).toEqual([{ path: "sign-up-email", ip: "203.0.113.77", userAgent: "Browser/1" }]);
  });

  it("a thrown AuthError is the answer; any other throw is a 500 without the hook's message, logged once", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let mode: "auth" | "plain" = "auth";
    const t = createTestAuth({
      hooks: {
        beforeUserCreated: () => {
          if (mode === "auth") throw new AuthError("INVALID_EMAIL", "Only company addresses");
          throw new Error("crm secret-detail-93 unreachable");
        },
      },
    });
    const own = await t.request("POST", "/sign-up/email", { body: { email: "a@example.com", password: PASSWORD } });
    expect(own.status).toBe(400);
    expect(await own.json()).toEqual({ code: "INVALID_EMAIL", message: "Only company addresses" });
    mode = "plain";
    errors.mockClear();
    const crash = await t.request("POST", "/sign-up/email", { body: { email: "b@example.com", password: PASSWORD } });
    expect(crash.status).toBe(500);
    const body = (await crash.json()) as { code: string; message: string };
    expect(body.code).toBe("INTERNAL_ERROR");
    expect(JSON.stringify(body)).not.toContain("secret-detail-93");
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]![0])).toContain("beforeUserCreated");
    expect(await t.store.users.findByEmail("b@example.com")).toBeNull();
  });

  it("a refused sign-in does not count as a failed credential (no lockout)", async () => {
    let banned = false;
    const t = createTestAuth({ hooks: { beforeSignIn: (user) => !(banned && user.email === "ada@example.com") } });
    await t.signUp("ada@example.com", PASSWORD);
    banned = true;
    for (let i = 0; i < 7; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: PASSWORD },
        ip: ip(),
      });
      expect(res.status).toBe(403);
    }
    banned = false;
    const ok = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      ip: ip(),
    });
    expect(ok.status).toBe(200);
  });

  it("a wrong password is 401 before the hook runs (the hook never reveals a banned account)", async () => {
    const seen: string[] = [];
    let banned = false;
    const t = createTestAuth({
      hooks: {
        beforeSignIn: (user) => {
          seen.push(user.email);
          return !banned;
        },
      },
    });
    await t.signUp("ada@example.com", PASSWORD);
    banned = true;
    seen.length = 0;
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "wrong password!" },
    });
    expect(res.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it("hook options are closed and must be functions", () => {
    expect(() => createTestAuth({ hooks: { beforeSignUp: () => true } as never })).toThrow(
      /hooks\.beforeSignUp is not an option; did you mean hooks\.beforeSignIn/,
    );
    expect(() => createTestAuth({ hooks: { beforeSignIn: true } as never })).toThrow(
      /hooks\.beforeSignIn must be a function/,
    );
  });
});
