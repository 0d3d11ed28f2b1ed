export { registerEmailPasswordRoutes, signInResponse } from "./routes.ts";
