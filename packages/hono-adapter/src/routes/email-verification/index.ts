export { registerEmailVerificationRoutes } from "./routes.ts";
