export { registerPasskeyRoutes } from "./routes.ts";
