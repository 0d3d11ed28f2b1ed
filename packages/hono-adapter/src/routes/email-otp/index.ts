export { registerEmailOtpRoutes, otpField } from "./routes.ts";
export { registerEmailChangeRoutes } from "./email-change.ts";
