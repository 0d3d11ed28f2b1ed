export { registerEmailPasswordRoutes } from "./routes.ts";
