export { AuthEvents } from "./events.ts";
export type { AuthEventMap, AuthEventName, AuthEvent, AuthEventListener, EventBase, OtpPurpose } from "./events.ts";
