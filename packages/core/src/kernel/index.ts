export { AuthEvents } from "./events.ts";
export type { AuthEventMap, AuthEventName, AuthEvent, AuthEventListener, EventBase, OtpPurpose } from "./events.ts";
export type { RequestMeta } from "./request-meta.ts";
export { SERVER_CALL, orServerCall } from "./request-meta.ts";
export { normalizeEmail, normalizeUsername, checkPasswordLength, resolveCallbackUrl, withQuery } from "./validation.ts";
export type { ResolvedConfig, RateLimitRule, ResolvedRule } from "./config.ts";
