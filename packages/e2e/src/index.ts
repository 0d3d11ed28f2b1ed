/**
 * @latchkey/e2e: one runtime-neutral end-to-end suite for any `(Request) => Response` handler, with thin
 * runners for Node (Vitest), Bun, Deno and workerd. Web-standard APIs only in everything exported here.
 *
 * @example
 * import { createE2eAuth, planSuite, runSuite, JOURNEYS } from "@latchkey/e2e";
 * const { target } = createE2eAuth();
 * const result = await runSuite(await planSuite(target, JOURNEYS), console.log);
 */
export { E2eAssertionError, ok, equal, notEqual, match } from "./harness/assert.ts";
export { E2eClient, expectStatus, expectError, cookieFrom } from "./harness/client.ts";
export type { FetchHandler, E2eResponse, E2eSession, CallOptions } from "./harness/client.ts";
export type { E2eTarget, Journey, JourneyContext } from "./harness/journey.ts";
export { planSuite, registerSuite, runSuite, summaryLine } from "./harness/runner.ts";
export type { PlannedCase, TestRegistrar, SuiteResult } from "./harness/runner.ts";
export { signUpWithPassword, E2E_PASSWORD } from "./harness/sign-up.ts";
export {
  JOURNEYS,
  apiKeysJourney,
  csrfJourney,
  deleteAccountJourney,
  emailOtpJourney,
  getSessionJourney,
  jwtJourney,
  notFoundJourney,
  openApiJourney,
  passwordJourney,
  signOutJourney,
  twoFactorJourney,
} from "./journeys/index.ts";
export { createE2eAuth, E2E_BASE_URL } from "./app.ts";
export type { E2eAuth, E2eAuthOptions } from "./app.ts";
export { exchangeHashes, EXCHANGE_PASSWORD } from "./argon2-exchange.ts";
export type { HashEntry, ExchangeResult } from "./argon2-exchange.ts";
export { runOnThisRuntime, runFailed, REPORT_PREFIX } from "./runners/run-runtime.ts";
export type { RuntimeReport, RunOptions } from "./runners/run-runtime.ts";
