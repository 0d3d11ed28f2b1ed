export { registerApiKeyRoutes } from "./routes.ts";
export { createRequireApiKey } from "./require-api-key.ts";
export type { ApiKeyVariables, RequireApiKeyOptions } from "./require-api-key.ts";
