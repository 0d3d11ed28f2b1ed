import { API_KEY_PLUGIN_ID, type AuthCore, type RequestMeta, type VerifyApiKeyInput } from "@latchkey/core";
import type { Telemetry, TelemetryHandle } from "./otel.ts";

/**
 * Counts what the events say, whether a request or `auth.api` caused it: sign-ups, one-time codes sent / verified /
 * failed (by purpose), lockouts and revoked sessions (by reason). Labels are purposes, reasons and result codes:
 * never the identifier, user id or key id the events also carry.
 *
 * The listeners are added once `@opentelemetry/api` has loaded, and only when a meter provider was registered by
 * then: the instruments of the API's no-op meter stay no-ops for good (see `Telemetry.metered`), and an event with
 * no listener is not even built (`emit`). Until the API has loaded there is nothing to count into either.
 */
export function countEvents(core: AuthCore, handle: TelemetryHandle): void {
  void handle.ready.then((telemetry) => {
    if (telemetry?.metered) countInto(core, telemetry);
  });
}

function countInto(core: AuthCore, telemetry: Telemetry): void {
  const { events } = core;
  events.on("UserSignedUp", () => telemetry.signUps.add(1));
  events.on("OtpRequested", (e) => telemetry.otpsSent.add(1, { "latchkey.otp.purpose": e.purpose }));
  events.on("OtpVerified", (e) => telemetry.otpsVerified.add(1, { "latchkey.otp.purpose": e.purpose }));
  events.on("OtpVerifyFailed", (e) => telemetry.otpsFailed.add(1, { "latchkey.otp.purpose": e.purpose }));
  events.on("AccountLocked", () => telemetry.lockouts.add(1));
  events.on("SessionRevoked", (e) => telemetry.sessionsRevoked.add(e.count, { "latchkey.revoke.reason": e.reason }));
  countApiKeyVerifies(core, telemetry);
}

/**
 * Counts every API-key verification by result (`VALID` or the refusal's code): the `/api-key/verify` route,
 * `requireApiKey` host routes and `auth.api` all go through the service's `verify` and `authenticate`.
 */
function countApiKeyVerifies(core: AuthCore, telemetry: Telemetry): void {
  const service = core.plugins.get(API_KEY_PLUGIN_ID)?.service;
  if (!service) return;
  const record = (result: { valid: true } | { valid: false; error: { code: string } }) =>
    telemetry.apiKeyVerifies.add(1, { "latchkey.api_key.result": result.valid ? "VALID" : result.error.code });
  const verify = service.verify.bind(service);
  const authenticate = service.authenticate.bind(service);
  service.verify = async (input: VerifyApiKeyInput, meta: RequestMeta) => {
    const result = await verify(input, meta);
    record(result);
    return result;
  };
  service.authenticate = async (input: VerifyApiKeyInput, meta: RequestMeta) => {
    const result = await authenticate(input, meta);
    record(result);
    return result;
  };
}
