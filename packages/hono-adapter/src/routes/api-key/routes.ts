import { API_KEY_PLUGIN_ID, type ApiKeyService } from "@latchkey/core";
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
  RerollBody,
  UpdateBody,
  UsageQuery,
  UsageResponse,
  VerifyBody,
  VerifyResponse,
} from "./schemas.ts";

const TAG = "API keys";

function registerCreateApiKey(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
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
        "Returns the plaintext `key` once; only its SHA-256 is stored. `remaining`, `rateLimit*`, `refill*`, `serverMetadata` and `userId` are server-only (400 `SERVER_ONLY_PROPERTY`; use `auth.api.createApiKey`). A user holds at most `apiKeys({ maxPerUser })` keys at once (default 100; 409 `TOO_MANY_KEYS`). With `apiKeys({ httpCreate: false })` this route is 403 `KEY_CREATION_DISABLED` (keys come from `auth.api.createApiKey` only). `permissions` must be within `apiKeys({ grantablePermissions })` (default: none) or 403 `INSUFFICIENT_PERMISSIONS`. Without `expiresIn` the key gets `apiKeys({ defaultExpiresIn })`; a requested `expiresIn` may not exceed `maxExpiresIn` (default one year; `null` is refused while a cap is set). `enabled: false` creates the key disabled (the owner may enable it later). With `organizationId` (`organizations()`) the key acts for that organization: the caller must be a member whose role grants `apiKey: [\"create\"]` (404 `ORGANIZATION_NOT_FOUND` for a non-member, 403 `INSUFFICIENT_PERMISSIONS` otherwise), `permissions` must be within that role's statements (403 `INSUFFICIENT_PERMISSIONS`), and every verify caps them by the creator's current role; deleting the organization deletes the key. Any other field is 400 `INVALID_REQUEST` naming it.",
      body: CreateBody,
      response: { schema: CreateResponse, description: "The key and its plaintext value" },
      errors: [403, 404, 409],
    },
    async (c, { body, session: s }) => {
      return c.json(await service.createForCaller(s.user.id, body, tools.meta(c), s.sessionRecord));
    },
  );
}

function registerVerifyApiKey(app: AuthApp, tools: RequestTools, service: ApiKeyService, header: string): void {
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
      description: `The key comes from the body (\`key\`) or, when absent, the \`${header}\` header. Always 200: \`{valid: true, apiKey}\` or \`{valid: false, error: {code, message}}\` with INVALID_API_KEY (missing, unknown or malformed, or the key's owner is gone), KEY_DISABLED, KEY_EXPIRED, INSUFFICIENT_PERMISSIONS (all-of check; an organization's key has only the permissions its creator's current role in the organization also grants, and none once the creator left it), USAGE_EXCEEDED (\`tryAgainIn\`: ms until the next refill, or null without one) or RATE_LIMITED (\`tryAgainIn\` ms). A valid verify of a key with a quota or a per-key rate limit consumes one use atomically (refilling first when the refill interval passed); other keys record \`lastUsedAt\` at most once per \`lastUsedResolution\`. A value replaced by a reroll verifies until its grace ends, answered with \`deprecated: true\` (and \`start\` of that value, never of its replacement). The answer never carries \`serverMetadata\` (operator data: \`auth.api.verifyApiKey\` and \`requireApiKey\` see it).`,
      body: VerifyBody,
      response: { schema: VerifyResponse, description: "The verdict" },
    },
    async (c, { body }) => {
      const key = body.key ?? c.req.header(header) ?? null;
      return c.json(await service.verifyForCaller({ key, permissions: body.permissions ?? null }, tools.meta(c)));
    },
  );
}

function registerListApiKeys(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/api-key/list",
      operationId: "listApiKeys",
      tag: TAG,
      authenticated: true,
      summary: "List the signed-in user's API keys, or an organization's",
      description:
        'Newest first, keyset-paginated: pass `nextCursor` back as `cursor`. Never includes the key or its hash. With `organizationId` (`organizations()`): that organization\'s keys, whoever created them, for a member whose role grants `apiKey: ["read"]` (403 `INSUFFICIENT_PERMISSIONS`; 404 `ORGANIZATION_NOT_FOUND` for a non-member).',
      query: ListQuery,
      response: { schema: ListResponse, description: "A page of keys" },
      errors: [403, 404],
    },
    async (c, { query, session: s }) => {
      const page = { limit: query.limit ?? null, cursor: query.cursor ?? null };
      if (query.organizationId !== undefined)
        return c.json(await service.listForOrganization(s.user.id, query.organizationId, page));
      return c.json(await service.list(s.user.id, page));
    },
  );
}

function registerUpdateApiKey(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
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
        "Only the owner's keys (another user's key is 404 `KEY_NOT_FOUND`). Quota, rate-limit, refill and `serverMetadata` fields are server-only (400 `SERVER_ONLY_PROPERTY`); permissions must be grantable (403 `INSUFFICIENT_PERMISSIONS`). `metadata` replaces the stored object. Any other field (`expiresIn`, `expiresAt`, `prefix` ...: only trusted code changes them) is 400 `INVALID_REQUEST` naming it, and nothing changes. The owner may disable a key, but `enabled: true` on a key the operator disabled (`locked`) is 403 `KEY_LOCKED` and changes nothing. Enabling a disabled key or adding a permission it lacks needs a fresh session: one created less than `session.freshAge` ago (403 `SESSION_NOT_FRESH` otherwise; sign in again); renaming, disabling, narrowing and metadata do not.",
      body: UpdateBody,
      response: { schema: ApiKeyResponse, description: "The updated key" },
      errors: [403, 404],
    },
    async (c, { body, session: s }) => {
      // Enabling a disabled key or adding a permission widens it: that needs a fresh session, like create.
      const assertFresh = () => tools.core.ctx.sessions.assertFresh(s.sessionRecord);
      return c.json(await service.updateForCaller(s.user.id, body, tools.meta(c), assertFresh));
    },
  );
}

function registerRerollApiKey(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/api-key/reroll",
      operationId: "rerollApiKey",
      tag: TAG,
      authenticated: true,
      // A new working value with every permission of the key: a stolen old cookie must not mint one.
      fresh: true,
      summary: "Replace an API key's value, keeping the old one for a grace period",
      description:
        "A new plaintext `key`, shown once, for the same key (same id, name, prefix, metadata, permissions, quota, rate limit, refill and expiry). The previous value keeps verifying for `gracePeriod` (default 0: it stops at once; at most `apiKeys({ maxRerollGrace })`, default 7 days), answered with `deprecated: true`; a second reroll inside the grace ends the first old value at once (at most two values verify). Only the owner's keys (another user's key is 404 `KEY_NOT_FOUND`). Emits `ApiKeyRerolled`.",
      body: RerollBody,
      response: { schema: CreateResponse, description: "The key and its new plaintext value" },
      errors: [404],
    },
    async (c, { body, session: s }) => {
      return c.json(await service.reroll(body, s.user.id, tools.meta(c)));
    },
  );
}

function registerGetApiKeyUsage(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/api-key/usage",
      operationId: "getApiKeyUsage",
      tag: TAG,
      authenticated: true,
      // One counters read per request, but up to 366 days x 7 outcomes of rows: a GET worth a per-IP rule.
      rateLimit: { window: "1m", max: 30 },
      summary: "Per-day usage of one of the caller's API keys",
      description:
        "Valid verifies and refusals by code per UTC day, oldest first, today last (`days`, default 30, at most the retention). Recorded only with `apiKeys({ usage: true })` (else 404 `NOT_FOUND`), in the counters store (Redis when configured), kept for `usageRetention` (default 90 days), and read in one round trip (`peekMany`). Another user's key is 404 `KEY_NOT_FOUND`.",
      query: UsageQuery,
      response: { schema: UsageResponse, description: "One entry per day" },
      errors: [404],
    },
    async (c, { query, session: s }) => {
      return c.json(await service.usage({ keyId: query.keyId, days: query.days ?? null }, s.user.id));
    },
  );
}

function registerDeleteApiKey(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
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
}

function registerDeleteExpiredApiKeys(app: AuthApp, tools: RequestTools, service: ApiKeyService): void {
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
  registerCreateApiKey(app, tools, service);
  registerVerifyApiKey(app, tools, service, header);
  registerListApiKeys(app, tools, service);
  registerUpdateApiKey(app, tools, service);
  registerRerollApiKey(app, tools, service);
  registerGetApiKeyUsage(app, tools, service);
  registerDeleteApiKey(app, tools, service);
  registerDeleteExpiredApiKeys(app, tools, service);
}
