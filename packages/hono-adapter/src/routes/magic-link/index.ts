export { registerMagicLinkRoutes } from "./routes.ts";
