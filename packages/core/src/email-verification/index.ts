export { EmailVerificationService } from "./email-verification.ts";
