export { registerTwoFactorRoutes } from "./routes.ts";
