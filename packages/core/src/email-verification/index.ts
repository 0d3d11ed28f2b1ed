export { EmailVerificationService, verificationLinkIdentifier } from "./email-verification.ts";
export { EMAIL_VERIFICATION_SCHEMA, resolveEmailVerification } from "./options.ts";
