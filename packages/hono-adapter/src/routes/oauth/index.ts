export { registerOAuthRoutes, SOCIAL_CALLBACK_PATH, SOCIAL_FORM_PATHS } from "./routes.ts";
