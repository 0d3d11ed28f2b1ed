import {
  apiKeys,
  argon2idHasher,
  auditLog,
  emailOtp,
  jwt,
  twoFactor,
  webCryptoRandom,
  type AuthPlugin,
  type EmailSender,
  type Store,
} from "@latchkey/core";
import { createAuth, type Auth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import type { E2eTarget } from "./harness/journey.ts";

/** The origin every e2e request is addressed to (and that CSRF trusts). */
export const E2E_BASE_URL = "https://app.example";
const E2E_SECRET = "e2e-secret-0123456789abcdefghijklmnopqrstuvwxyz";

export interface E2eAuthOptions {
  /**
   * Builds the store the auth runs on. Default `memoryStore()`. The store engineer's libSQL/PostgreSQL variants
   * plug in here (e.g. `() => drizzleStore(...)`) so the same journeys run against them.
   */
  createStore?: () => Store;
}

export interface E2eAuth {
  auth: Auth;
  target: E2eTarget;
  /** Ids of the plugins installed. */
  plugins: string[];
}

/**
 * The auth every runtime runner tests: standalone handler at `/auth`, every optional feature, cheap argon2id
 * (the engine is still the runtime's default), client IP from `x-e2e-ip`, codes captured from `OtpGenerated`.
 *
 * @example
 * import { createE2eAuth, planSuite, runSuite, JOURNEYS } from "@latchkey/e2e";
 * const { target } = createE2eAuth();
 * const result = await runSuite(await planSuite(target, JOURNEYS), console.log);
 */
export function createE2eAuth(options: E2eAuthOptions = {}): E2eAuth {
  const store = (options.createStore ?? memoryStore)();
  // Every optional feature; a new one goes here and its journey in src/journeys/.
  const plugins: AuthPlugin[] = [emailOtp(), apiKeys(), jwt(), auditLog(), twoFactor()];
  // Codes reach the suite only through the event, as `auth.getOtp` does; nothing is printed.
  const quiet: EmailSender = { async send() {} };
  const auth = createAuth({
    secret: E2E_SECRET,
    database: store,
    baseUrl: E2E_BASE_URL,
    basePath: "/auth",
    email: { sender: quiet },
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
    }),
    getClientIp: (request) => request.headers.get("x-e2e-ip"),
    plugins,
  });
  const codes: Array<{ identifier: string; plain: string }> = [];
  auth.events.on(
    "OtpGenerated",
    (event) => void codes.push({ identifier: event.identifier.toLowerCase(), plain: event.plain }),
  );
  const target: E2eTarget = {
    handler: (request) => auth.handler(request),
    baseUrl: E2E_BASE_URL,
    basePath: "/auth",
    store,
    latestOtp(email) {
      // OtpGenerated names the recipient email as its identifier (as `auth.getOtp(email)` does); newest wins.
      return codes.findLast((c) => c.identifier === email.toLowerCase())?.plain;
    },
  };
  return { auth, target, plugins: plugins.map((p) => p.id) };
}
