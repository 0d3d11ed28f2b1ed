// The hook tests' flows: every path that creates a user or a session, prepared and called as a client would, and
// hooks that record their calls. The social flows sign in at the calling test file's own OpenID provider.
import { expect } from "vitest";
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
import type { createTestAuth, TestAuth } from "../../test-auth.ts";
import { authorizeAt, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { deliver, exampleId, PROVIDER, startFlow } from "../oauth/social-test-kit.ts";

export const PASSWORD = "correct horse battery";
let ipSeq = 0;
export const ip = () => `198.19.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;
const flush = () => new Promise((r) => setTimeout(r, 0));

export type Calls = Array<{ hook: "beforeUserCreated" | "beforeSignIn"; path: string; email: string }>;

/**
 * Hooks that record their calls and check, when called, that nothing was written yet: no user with that email
 * (beforeUserCreated) and no session beyond the ones that existed (beforeSignIn).
 */
export function recordingHooks(
  store: () => FullStore,
  calls: Calls,
  answer: { signUp?: unknown; signIn?: unknown } = {},
) {
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

interface Flow {
  /** Prepares what the path needs (an existing user, a code, a link) and returns the call of the path itself. */
  setup(t: TestAuth, email: string): Promise<() => Promise<Response | { status: number; code?: string }>>;
  /** Needs the user to exist before the path runs. */
  existing: boolean;
  options?: Parameters<typeof createTestAuth>[0];
}

/**
 * The flows of every user-creating and session-creating path; the social ones sign in at `provider()` (the calling
 * test file's OpenID provider, started by its own hooks).
 */
export function hookFlows(provider: () => TestOidcProvider) {
  /**
   * A social sign-in at the test provider (its verified email, a trusted provider): the callback's redirect as an
   * answer of the tables' shape: 200 with the session on success, the error code (and 403 for the hooks' refusals).
   */
  const socialFlow = (existing: boolean): Flow => ({
    existing,
    get options() {
      return {
        plugins: [oauth({ providers: [exampleId(provider())], accountLinking: { trustedProviders: [PROVIDER] } })],
      };
    },
    setup: async (t, email) => {
      t.clock.set(Date.now());
      const { url, stateCookie } = await startFlow(t);
      provider().login({ sub: `sub-${email}`, email, email_verified: true });
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

  /** Every path that creates a user. A path added to core without the hook fails the source scan (hooks-paths.test.ts). */
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
  return { USER_CREATION, SIGN_IN };
}
