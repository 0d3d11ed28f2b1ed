/**
 * @latchkey/hono-adapter: Latchkey over HTTP as a Hono sub-app, a standalone handler and middleware.
 *
 * @example
 * import { createAuth, clientIp } from "@latchkey/hono-adapter";
 */
export { createAuth, ADAPTER_OPTION_SHAPE } from "./create-auth.ts";
export type { Auth, CreateAuthOptions, ExecutionContextLike } from "./create-auth.ts";
export { clientIp, fromSocket, fromCfConnectingIp, fromForwardedFor, fromForwarded } from "./http/client-ip.ts";
export type { CorsOptions } from "./middleware/cors.ts";
export type { GetClientIp } from "./http/client-ip.ts";
export { ERROR_STATUS } from "./http/error-status.ts";
export { errorResponse } from "./http/errors.ts";
export { requestSession } from "./http/request-session.ts";
export type { RequestSession } from "./http/request-session.ts";
export type { ErrorBody } from "./http/errors.ts";
export type { AuthEnv, AuthVariables, OptionalAuthVariables } from "./env.ts";
export type { AuthApp } from "./routes/define.ts";
export type { ApiKeyVariables, RequireApiKeyOptions } from "./routes/api-key/index.ts";
export type { OrganizationVariables, RequireOrganizationOptions } from "./routes/organization/index.ts";
