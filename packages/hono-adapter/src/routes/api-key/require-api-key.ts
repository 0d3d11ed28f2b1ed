import type { MiddlewareHandler } from "hono";
import {
  API_KEY_PLUGIN_ID,
  AuthConfigError,
  AuthError,
  type ApiKeyView,
  type Permissions,
  type UserView,
} from "@latchkey/core";
import { normalizePermissions } from "@latchkey/core/internal";
import { errorResponse } from "../../http/errors.ts";
import type { RequestTools } from "../../middleware/session.ts";

/**
 * Context variables set by `auth.requireApiKey()`.
 *
 * @example
 * app.get("/data", auth.requireApiKey(), (c) => c.json({ user: c.var.user.email, key: c.var.apiKey.name }));
 */
export interface ApiKeyVariables {
  /** The verified key (never the key itself or its hash). */
  apiKey: ApiKeyView;
  /** The key's owner. */
  user: UserView;
  /** True when the caller used a value a reroll replaced (still inside its grace): tell them to switch. */
  apiKeyDeprecated: boolean;
}

/**
 * Options of `auth.requireApiKey(options)`.
 *
 * @example
 * auth.requireApiKey({ permissions: { files: ["read", "write"] } });
 */
export interface RequireApiKeyOptions {
  /** Permissions the key must hold (all-of), e.g. `{ files: ["read"] }`. */
  permissions?: Permissions;
}

/**
 * Builds `auth.requireApiKey(options)`: a host-route middleware reading the key from the configured header
 * (`x-api-key`). It answers failures itself as JSON: 401 INVALID_API_KEY / KEY_DISABLED / KEY_EXPIRED, 429
 * RATE_LIMITED (with `Retry-After`) / USAGE_EXCEEDED, 403 INSUFFICIENT_PERMISSIONS.
 *
 * @example
 * app.get("/files", auth.requireApiKey({ permissions: { files: ["read"] } }), (c) => c.json({ owner: c.var.user.id, key: c.var.apiKey.id }));
 */
export function createRequireApiKey(tools: RequestTools) {
  return (options: RequireApiKeyOptions = {}): MiddlewareHandler<{ Variables: ApiKeyVariables }> => {
    const service = tools.core.plugins.get(API_KEY_PLUGIN_ID)?.service;
    if (!service) throw new AuthConfigError("requireApiKey", "needs the apiKeys() plugin in createAuth({ plugins })");
    let permissions: Permissions | null = null;
    if (options.permissions !== undefined) {
      const checked = normalizePermissions(options.permissions);
      if (!checked.ok) throw new AuthConfigError("requireApiKey.permissions", checked.message);
      permissions = checked.value;
    }
    const { header } = service.options;
    return async (c, next) => {
      const result = await service.authenticate({ key: c.req.header(header) ?? null, permissions }, tools.meta(c));
      if (!result.valid) {
        const { code, message, tryAgainIn } = result.error;
        // Retry-After only when waiting helps: a window that resets, or a used-up quota that refills.
        return errorResponse(
          new AuthError(
            code,
            message,
            typeof tryAgainIn === "number" ? { retryAfter: Math.max(1, Math.ceil(tryAgainIn / 1000)) } : {},
          ),
        );
      }
      c.set("apiKey", result.apiKey);
      c.set("user", result.user);
      c.set("apiKeyDeprecated", result.deprecated);
      await next();
    };
  };
}
