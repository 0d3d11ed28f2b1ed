import { afterAll, beforeAll } from "vitest";
import { randomUUID } from "node:crypto";
import { oauth, type AccountRecord, type OAuthOptions } from "@latchkey/core";
import type { ScheduleRun } from "@latchkey/test-support";
import { authorizeAt, startTestOidcProvider, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { freshEmail, seamAuth, type Answer } from "./harness.ts";
import { exampleId, PROVIDER, REDIRECT_URI, startFlow } from "../routes/oauth/social-test-kit.ts";
import type { TestAuth } from "../test-auth.ts";

// The worlds of the social sign-in pairs (social-callbacks.test.ts, social-linking.test.ts). The test provider is
// each file's own: `socialWorlds` starts it for the file that calls it and makes the helpers that reach it.

/**
 * The pair budget of a database run on every store (150 + 50): each world runs a flow at the provider (two for the
 * unlink pair) before the pair, and the deletion pair's 15 steps have thousands of interleavings anyway.
 */
export const socialBudget = () => ({ exhaustiveLimit: 150, samples: 50 });

/** Each pair's own time limit: its worlds go to the provider and hash passwords, and a database costs round trips. */
export const PAIR_TIMEOUT_MS = 120_000;

/** What a callback answered: its redirect's `?error=` (null on success) and the session its cookie carries. */
export interface CallbackAnswer {
  status: number;
  error: string | null;
  /** The session token of the cookie it set, or null. */
  token: string | null;
}

/** A flow's result as the scheduler keeps it: a pair's flows answer differently shaped results. */
type FlowResult = CallbackAnswer | Answer;

export async function callbackAnswer(t: TestAuth, res: Promise<Response>): Promise<FlowResult> {
  return readCallback(t, res);
}

export async function readCallback(t: TestAuth, res: Promise<Response>): Promise<CallbackAnswer> {
  const r = await res;
  await r.body?.cancel();
  const location = r.headers.get("location");
  const name = t.auth.core.config.cookies.name;
  const line = r.headers.getSetCookie().find((l) => l.split("=")[0] === name && !/Max-Age=0/i.test(l));
  const value = line ? (line.split(";")[0] as string).slice(name.length + 1) : "";
  return {
    status: r.status,
    error: location ? new URL(location).searchParams.get("error") : null,
    token: value ? decodeURIComponent(value) : null,
  };
}

/**
 * A file's test provider, started before its tests and closed after them (call it at the top of the file), and the
 * helpers of its worlds: identities, numbered per file, and flows at that provider.
 */
export function socialWorlds() {
  let idp: TestOidcProvider;
  beforeAll(async () => {
    idp = await startTestOidcProvider([REDIRECT_URI]);
  });
  afterAll(async () => {
    await idp.close();
  });
  /** The file's provider (from its `beforeAll` on). */
  const provider = () => idp;

  let seq = 0;
  /** A provider identity of its own per world, so worlds on one shared database never meet. */
  const person = (email = freshEmail("social")) => ({
    sub: `seams-${process.pid}-${++seq}`,
    email,
    email_verified: true,
    name: "Ada Lovelace",
  });

  /** An auth with `oauth()` over the test provider, its clock at the real time (the provider's tokens use it). */
  function socialSeamAuth(store: Parameters<typeof seamAuth>[0], options: Partial<OAuthOptions> = {}): TestAuth {
    const t = seamAuth(store, {
      plugins: [oauth({ providers: [exampleId(provider())], ...options })],
    }) as unknown as TestAuth;
    t.clock.set(Date.now());
    return t;
  }

  /** A sign-in flow of `who`, run at the provider up to its redirect back: what the browser will deliver. */
  async function providerRedirect(t: TestAuth, who: ReturnType<typeof person>) {
    const { url, stateCookie } = await startFlow(t);
    provider().login(who);
    return { callback: await authorizeAt(url), stateCookie };
  }

  return { provider, person, socialSeamAuth, providerRedirect };
}

/** A linked account row of `who` for `userId`, written straight to the store (no tokens): the setup's shortcut. */
export function linkedAccount(t: TestAuth, userId: string, sub: string): AccountRecord {
  const at = new Date(t.clock.now());
  return {
    id: randomUUID().replaceAll("-", ""),
    userId,
    providerId: PROVIDER,
    passwordHash: null,
    accountId: sub,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: at,
    updatedAt: at,
  };
}

export const resultOf = <R>(run: ScheduleRun<unknown>, flow: string): R => {
  const r = run.results[flow]!;
  if (!r.ok) throw r.error;
  return r.value as R;
};

/** The tokens of the user's sessions (as hashes). */
export const sessionHashes = async (t: TestAuth, userId: string) =>
  (await t.store.sessions.listByUser(userId)).map((s) => s.tokenHash).sort();
