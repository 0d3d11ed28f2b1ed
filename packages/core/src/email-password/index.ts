export { EmailPasswordService, lockoutIdentifier } from "./email-password.ts";
export type { SignUpInput, SignUpResult, SignInInput } from "./email-password.ts";
