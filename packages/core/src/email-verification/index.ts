export { EmailVerificationService, verificationLinkIdentifier } from "./email-verification.ts";
