export { registerSessionRoutes } from "./routes.ts";
