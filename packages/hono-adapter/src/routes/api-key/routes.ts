import { API_KEY_PLUGIN_ID } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { SuccessSchema } from "../schemas.ts";
import {
  ApiKeyResponse,
  CreateBody,
  CreateResponse,
  DeleteBody,
  DeletedResponse,
  ListQuery,
  ListResponse,
  UpdateBody,
  VerifyBody,
  VerifyResponse,
} from "./schemas.ts";

const TAG = "API keys";

/** `/api-key/*`: registered only when `apiKeys()` is installed (otherwise the paths answer 404). */
export function registerApiKeyRoutes(app: AuthApp, tools: RequestTools): void {
  const service = tools.core.plugins.get(API_KEY_PLUGIN_ID)?.service;
  if (!service) return;
  const { header } = service.options;
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: header,
    description: "A Latchkey API key (for `requireApiKey` routes and `/api-key/verify`).",
  });

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/create",
      operationId: "createApiKey",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Create an API key for the signed-in user",
      description:
        "Returns the plaintext `key` once; only its SHA-256 is stored. `remaining`, `rateLimit*`, `refill*` and `userId` are server-only (400 `SERVER_ONLY_PROPERTY`; use `auth.api.createApiKey`). `permissions` must be within `apiKeys({ grantablePermissions })` (default: none) or 403 `INSUFFICIENT_PERMISSIONS`. Without `expiresIn` the key gets `apiKeys({ defaultExpiresIn })`; a requested `expiresIn` may not exceed `maxExpiresIn` (default one year; `null` is refused while a cap is set).",
      body: CreateBody,
      response: { schema: CreateResponse, description: "The key and its plaintext value" },
      errors: [403],
    },
    async (c, { body, session: s }) => {
      return c.json(await service.createForCaller(s.user.id, body, tools.meta(c)));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/verify",
      operationId: "verifyApiKey",
      tag: TAG,
      // The key may come in the header instead of the body; without either the answer is `valid: false`.
      security: [{ apiKey: [] }, {}],
      // One indexed read (plus one atomic write for metered keys): a per-IP counter would add a write to every call.
      globalRateLimit: false,
      summary: "Verify an API key",
      description: `The key comes from the body (\`key\`) or, when absent, the \`${header}\` header. Always 200: \`{valid: true, apiKey}\` or \`{valid: false, error: {code, message}}\` with INVALID_API_KEY (missing, unknown or malformed), KEY_DISABLED, KEY_EXPIRED, INSUFFICIENT_PERMISSIONS (all-of check), USAGE_EXCEEDED (\`tryAgainIn: null\`) or RATE_LIMITED (\`tryAgainIn\` ms). A valid verify of a key with a quota or a per-key rate limit consumes one use atomically; unlimited keys are not written.`,
      body: VerifyBody,
      response: { schema: VerifyResponse, description: "The verdict" },
    },
    async (c, { body }) => {
      const key = body.key ?? c.req.header(header) ?? null;
      return c.json(await service.verify({ key, permissions: body.permissions ?? null }, tools.meta(c)));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/api-key/list",
      operationId: "listApiKeys",
      tag: TAG,
      authenticated: true,
      summary: "List the signed-in user's API keys",
      description:
        "Newest first, keyset-paginated: pass `nextCursor` back as `cursor`. Never includes the key or its hash.",
      query: ListQuery,
      response: { schema: ListResponse, description: "A page of keys" },
    },
    async (c, { query, session: s }) => {
      return c.json(await service.list(s.user.id, { limit: query.limit ?? null, cursor: query.cursor ?? null }));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/update",
      operationId: "updateApiKey",
      tag: TAG,
      authenticated: true,
      summary: "Change an API key's name, enabled flag, metadata or permissions",
      description:
        "Only the owner's keys (another user's key is 404 `KEY_NOT_FOUND`). Quota and rate-limit fields are server-only (400 `SERVER_ONLY_PROPERTY`); permissions must be grantable (403 `INSUFFICIENT_PERMISSIONS`). `metadata` replaces the stored object.",
      body: UpdateBody,
      response: { schema: ApiKeyResponse, description: "The updated key" },
      errors: [403, 404],
    },
    async (c, { body, session: s }) => {
      return c.json(await service.updateForCaller(s.user.id, body, tools.meta(c)));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/delete",
      operationId: "deleteApiKey",
      tag: TAG,
      authenticated: true,
      summary: "Revoke an API key",
      description:
        "Deletes one of the caller's keys (another user's key is 404 `KEY_NOT_FOUND`). Emits `ApiKeyRevoked`.",
      body: DeleteBody,
      response: { schema: SuccessSchema, description: "Revoked" },
      errors: [404],
    },
    async (c, { body, session: s }) => {
      return c.json(await service.delete(body.keyId, s.user.id, tools.meta(c)));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/delete-all-expired",
      operationId: "deleteExpiredApiKeys",
      tag: TAG,
      authenticated: true,
      summary: "Sweep the caller's expired API keys",
      description:
        "Deletes the signed-in user's expired keys and answers how many went (`auth.api.deleteExpiredApiKeys()` sweeps every user's).",
      response: { schema: DeletedResponse, description: "How many keys were deleted" },
    },
    async (c, { session: s }) => {
      return c.json(await service.deleteExpired(s.user.id, tools.meta(c)));
    },
  );
}
