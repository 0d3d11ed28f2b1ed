export { AuthError, AuthConfigError } from "./errors.ts";
export type { AuthErrorCode, AuthErrorOptions } from "./errors.ts";
export { describeError } from "./describe.ts";
