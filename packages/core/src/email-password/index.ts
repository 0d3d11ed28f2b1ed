export { EmailPasswordService } from "./email-password.ts";
export type { SignUpInput, SignUpResult, SignInInput } from "./email-password.ts";
export { EMAIL_PASSWORD_SCHEMA, resolveEmailPassword, resolvePasswordResetLink } from "./options.ts";
