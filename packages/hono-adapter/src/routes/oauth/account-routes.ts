import { z } from "@hono/zod-openapi";
import type { OAuthService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { SuccessSchema } from "../schemas.ts";
import { start } from "./flow.ts";
import {
  AccessTokenSchema,
  AccountIdField,
  LinkedAccountSchema,
  ProviderField,
  ScopesField,
  TAG,
  UrlField,
  UrlSchema,
} from "./schemas.ts";

export function registerAccounts(app: AuthApp, tools: RequestTools, service: OAuthService): void {
  const { config } = tools.core;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/link-social",
      rateLimit: { window: "1m", max: 10 },
      operationId: "linkSocial",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Link another provider to the signed-in user",
      description:
        "Starts the same flow as `POST /sign-in/social`, for linking: the callback links the provider identity to this user instead of signing in (409 `ACCOUNT_ALREADY_LINKED` on the error callback when it belongs to another user) and redirects to `callbackURL`.",
      body: z.object({
        provider: ProviderField,
        callbackURL: UrlField("Where the browser goes once linked. Default: `baseUrl`"),
        errorCallbackURL: UrlField("Where a failed or cancelled flow ends, with `?error=<code>`"),
        scopes: ScopesField,
      }),
      response: { schema: UrlSchema, description: "The provider's URL; sets the state cookie" },
      errors: [404],
    },
    async (c, { body, session }) => start(c, service, config, body, tools, session.user.id),
  );
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/list-accounts",
      operationId: "listAccounts",
      tag: TAG,
      authenticated: true,
      summary: "The signed-in user's accounts",
      description:
        "Every way the user signs in: a password (`credential`), email codes or links, and each linked provider identity with its granted scopes. Provider tokens are never part of it.",
      response: { schema: z.array(LinkedAccountSchema), description: "The accounts, oldest first" },
    },
    async (c, { session }) => c.json(await service.listAccounts(session.user.id)),
  );
}

export function registerAccountTokens(app: AuthApp, tools: RequestTools, service: OAuthService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/unlink-account",
      rateLimit: { window: "1m", max: 10 },
      operationId: "unlinkAccount",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Unlink a provider from the signed-in user",
      description:
        "Removes a linked provider identity. Never the user's last way to sign in: 409 `LAST_ACCOUNT` (decided atomically, so two unlinks at once cannot remove both of the last two). Unknown: 404 `ACCOUNT_NOT_FOUND`.",
      body: z.object({ provider: ProviderField, accountId: AccountIdField }),
      response: { schema: SuccessSchema, description: "Unlinked" },
      errors: [404, 409],
    },
    async (c, { body, session }) =>
      c.json(
        await service.unlink(
          session.user.id,
          { providerId: body.provider, accountId: body.accountId ?? null },
          tools.meta(c),
        ),
      ),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/get-access-token",
      rateLimit: { window: "1m", max: 30 },
      operationId: "getAccessToken",
      tag: TAG,
      authenticated: true,
      summary: "A valid provider access token of the signed-in user",
      description:
        "The stored access token of the user's linked account at `provider`, or, when it has expired, a new one from the stored refresh token (stored again, sealed). 409 `OAUTH_TOKEN_UNAVAILABLE` when it expired and cannot be refreshed (sign in with the provider again); 404 `ACCOUNT_NOT_FOUND` without such an account.",
      body: z.object({ provider: ProviderField, accountId: AccountIdField }),
      response: { schema: AccessTokenSchema, description: "The provider access token" },
      errors: [404, 409],
    },
    async (c, { body, session }) => {
      c.header("cache-control", "no-store");
      return c.json(
        await service.accessToken(session.user.id, { providerId: body.provider, accountId: body.accountId ?? null }),
      );
    },
  );
}
