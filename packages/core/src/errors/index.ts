export { AuthError, AuthConfigError, invalidField } from "./errors.ts";
export type { AuthErrorCode, AuthErrorOptions } from "./errors.ts";
export { describeError } from "./describe.ts";
