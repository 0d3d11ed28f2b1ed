export { registerEmailOtpRoutes } from "./routes.ts";
