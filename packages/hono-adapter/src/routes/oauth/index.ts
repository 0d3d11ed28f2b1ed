export { registerOAuthRoutes } from "./routes.ts";
