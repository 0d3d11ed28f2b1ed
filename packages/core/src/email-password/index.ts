export { EmailPasswordService } from "./email-password.ts";
export type { SignInInput } from "./email-password.ts";
export type { SignUpInput, SignUpResult } from "./sign-up.ts";
export { EMAIL_PASSWORD_SCHEMA, resolveEmailPassword, resolvePasswordResetLink } from "./options.ts";
