export { registerJwtRoutes } from "./routes.ts";
