import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  OAUTH_PLUGIN_ID,
  OAUTH_STATE_TTL_MS,
  OAuthCallbackError,
  type OAuthService,
  type ResolvedConfig,
} from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import type { AuthEnv } from "../../env.ts";
import { readSoleCookie, serializeCookie } from "../../http/cookies.ts";
import { isFormPost } from "../../middleware/body-guard.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { SignInResponseSchema, signInAnswer, SuccessSchema } from "../schemas.ts";

const TAG = "Social sign-in";

/** The provider's `form_post` callback (`POST /callback/{provider}`): a cross-site POST, its state its defence. */
export const SOCIAL_CALLBACK_PATH = /\/callback\/[a-z0-9][a-z0-9-]{0,31}$/;
/** The paths that take an HTML form besides JSON: a plain form's `POST /sign-in/social`, and the callback. */
export const SOCIAL_FORM_PATHS = /\/(?:sign-in\/social|callback\/[a-z0-9][a-z0-9-]{0,31})$/;

const UrlField = (what: string) =>
  z
    .string()
    .max(2048)
    .nullish()
    .openapi({
      description: `${what}: a path on \`baseUrl\` or a URL on a trusted origin (else 400 \`INVALID_CALLBACK_URL\`).`,
      example: "/dashboard",
    });

const ProviderField = z.string().max(64).openapi({ description: "A configured provider's id", example: "github" });
const AccountIdField = z
  .string()
  .max(255)
  .nullish()
  .openapi({ description: "The provider's subject, when several accounts of this provider are linked" });
const ScopesField = z
  .array(z.string().max(128))
  .max(32)
  .nullish()
  .openapi({ description: "Scopes to ask for besides the provider's own" });

const IdTokenField = z
  .object({
    token: z.string().min(1).max(16_384).openapi({ description: "The ID token the provider's SDK gave the app" }),
    nonce: z.string().min(1).max(512).openapi({
      description: "The nonce the app gave the provider's SDK: the token's `nonce` claim must be exactly this",
    }),
    accessToken: z
      .string()
      .max(16_384)
      .nullish()
      .openapi({ description: "The access token that came with it, kept sealed for `POST /get-access-token`" }),
  })
  .optional()
  .openapi({
    description:
      "A native app's sign-in (Sign in with Apple, Google Sign-In): no redirect; the answer is a sign-in answer (session, or `twoFactorRequired`).",
  });

/** The provider's authorization response (RFC 6749 4.1.2, RFC 9207 `iss`): the GET's query, the form_post's body. */
const AuthorizationResponse = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

const UrlSchema = z
  .object({ url: z.string().openapi({ description: "The provider's authorization URL: send the browser there." }) })
  .openapi("SocialRedirect");

const LinkedAccountSchema = z
  .object({
    id: z.string(),
    providerId: z
      .string()
      .openapi({ description: "`credential` (a password), `EMAIL_OTP`, `MAGIC_LINK` or a provider id" }),
    accountId: z
      .string()
      .nullable()
      .openapi({ description: "The provider's subject; null for a password or an email code" }),
    scopes: z.array(z.string()),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("LinkedAccount");

const AccessTokenSchema = z
  .object({
    accessToken: z.string(),
    accessTokenExpiresAt: z.string().nullable().openapi({ format: "date-time" }),
    scopes: z.array(z.string()),
    idToken: z.string().nullable(),
  })
  .openapi("ProviderAccessToken");

/** The cookie that binds a flow to the browser that started it: HttpOnly, only sent to the callback, 10 minutes. */
function stateCookie(config: ResolvedConfig, value: string, maxAge: number, formPost: boolean): string {
  const secure = config.cookies.secure || formPost;
  return serializeCookie({
    name: stateCookieName(config),
    value,
    maxAge,
    httpOnly: true,
    // A `form_post` provider (Apple) POSTs cross-site: only a SameSite=None cookie comes along.
    sameSite: formPost ? "None" : "Lax",
    secure,
    path: `${config.basePath}/callback/`,
    domain: null,
  });
}

function stateCookieName(config: ResolvedConfig): string {
  return `${config.cookies.secure ? "__Secure-" : ""}latchkey_oauth_state`;
}

function registerSignIn(app: AuthApp, tools: RequestTools, service: OAuthService): void {
  const { config } = tools.core;
  const ids = service
    .providers()
    .map((p) => `\`${p.id}\``)
    .join(", ");
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-in/social",
      rateLimit: { window: "1m", max: 20 },
      operationId: "signInSocial",
      tag: TAG,
      rejectNavigation: true,
      summary: "Start a sign-in with a provider",
      description: `Starts the authorization code flow with PKCE (S256) with a configured provider (${ids}) and answers its authorization URL; send the browser there. The flow's state is random, single-use, stored (10 minutes) and bound to this browser by an HttpOnly state cookie set here. The provider comes back to \`GET /callback/{provider}\`, which signs in and redirects to \`callbackURL\` (\`newUserCallbackURL\` when it created the user), or to \`errorCallbackURL\` with \`?error=<code>\` when the flow fails. Unknown provider: 404 \`PROVIDER_NOT_FOUND\`. With \`idToken\` (native apps, OpenID Connect providers): the ID token is verified against the provider's JWKS (signature with an asymmetric algorithm, issuer, audience \`clientId\` or one of the provider's \`nativeClientIds\`, expiry, issued-at) and its \`nonce\` claim must equal \`idToken.nonce\`; the account rules are the callback's, and the answer is a sign-in answer (session cookie, \`{user, session}\`, \`credentials\` for token clients, or \`twoFactorRequired\`). A token that fails a check: 400 \`OAUTH_INVALID_RESPONSE\`; 409 \`ACCOUNT_EXISTS\` as in the callback.`,
      body: z.object({
        provider: ProviderField,
        callbackURL: UrlField("Where the browser goes once signed in. Default: `baseUrl`"),
        errorCallbackURL: UrlField("Where a failed or cancelled flow ends, with `?error=<code>`"),
        newUserCallbackURL: UrlField("Where a sign-in that created the user goes instead of `callbackURL`"),
        scopes: ScopesField,
        idToken: IdTokenField,
      }),
      response: {
        schema: z.union([UrlSchema, signInAnswer(tools.core, SignInResponseSchema)]),
        description: "The provider's URL (sets the state cookie); with `idToken`, signed in (sets the session cookie)",
      },
      errors: [400, 404, 409, 503],
    },
    async (c, { body }) => {
      const { idToken, ...flow } = body;
      if (!idToken) return start(c, service, config, flow, tools, null);
      const { signIn } = await service.signInWithIdToken({ provider: body.provider, idToken }, tools.meta(c));
      return signInResponse(c, signIn, config);
    },
  );
}

async function start(
  c: Context<AuthEnv>,
  service: OAuthService,
  config: ResolvedConfig,
  body: Parameters<OAuthService["start"]>[0],
  tools: RequestTools,
  linkUserId: string | null,
): Promise<Response> {
  const { url, state } = await service.start(body, tools.meta(c), linkUserId);
  const formPost = service.providers().find((p) => p.id === body.provider)?.responseMode === "form_post";
  c.header("set-cookie", stateCookie(config, service.stateCookieValue(state), OAUTH_STATE_TTL_MS / 1000, formPost), {
    append: true,
  });
  c.header("cache-control", "no-store");
  // A plain HTML form (no script to read `{ url }`): the browser goes straight to the provider.
  if (isFormPost(c)) return c.redirect(url, 302);
  return c.json({ url });
}

function registerCallback(app: AuthApp, tools: RequestTools, service: OAuthService): void {
  const { config } = tools.core;
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/callback/{provider}",
      rateLimit: { window: "1m", max: 30 },
      operationId: "socialCallback",
      tag: TAG,
      summary: "The provider's redirect back (authorization response)",
      description:
        "Where the provider sends the browser back. The state must be the one this browser's state cookie names, known, unexpired and unspent (it is spent here, once); the code is redeemed with the flow's PKCE verifier; an OpenID Connect ID token is verified (signature against the issuer's JWKS with an asymmetric algorithm, issuer, audience, expiry, issued-at, nonce), and an RFC 9207 `iss` is checked when the provider sends it. The identity is found by (provider, subject), never by email; a first sign-in whose email is an existing user's links only when the provider asserts the email verified and is in `accountLinking.trustedProviders` (else `ACCOUNT_EXISTS`). Success: the session cookie and a redirect to the flow's `callbackURL`. A user with two-factor on (`twoFactor()`) gets no session yet: the pending sign-in cookie and a redirect to `callbackURL` with `?twoFactorRequired=true`, where the app's page finishes the sign-in with `POST /two-factor/verify` (a trusted device skips this step). Failure: a redirect to its `errorCallbackURL` with `?error=<code>` (`OAUTH_STATE_MISMATCH`, `OAUTH_ACCESS_DENIED`, `OAUTH_PROVIDER_ERROR`, `OAUTH_INVALID_RESPONSE`, `OAUTH_EMAIL_MISSING`, `ACCOUNT_EXISTS`, `ACCOUNT_ALREADY_LINKED`, `EMAIL_NOT_VERIFIED`, ...), nothing created.",
      params: z.object({ provider: ProviderField }),
      query: AuthorizationResponse,
      redirect:
        "Signed in (session cookie set), stopped for the second step (pending sign-in cookie set, `?twoFactorRequired=true`) or failed: the browser goes to the callback or error callback URL",
      response: { schema: SuccessSchema, description: "Never: the answer is a redirect" },
    },
    async (c) => {
      const params = new URL(c.req.url).searchParams;
      return finish(c, service, config, tools, c.req.param("provider") ?? "", params);
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/callback/{provider}",
      rateLimit: { window: "1m", max: 30 },
      operationId: "socialCallbackFormPost",
      tag: TAG,
      summary: "The provider's POST back (`form_post` authorization response, Apple)",
      description:
        "The same as `GET /callback/{provider}` for a provider that POSTs its answer as an HTML form (`response_mode=form_post`: Apple when it is asked for the name or email). The body is the provider's form (`application/x-www-form-urlencoded`; JSON is read the same way). It comes cross-site, so the CSRF origin check does not apply here: the flow's state is the defence (bound to this browser's state cookie, which is `SameSite=None` for such a provider so that it comes along, single-use, 10 minutes). Only `code`, `state`, `iss`, `error` and `error_description` are read; an `id_token` or `user` field of the form is ignored (the ID token comes from the token endpoint, checked as in the GET).",
      params: z.object({ provider: ProviderField }),
      body: AuthorizationResponse,
      redirect:
        "Signed in (session cookie set), stopped for the second step or failed: the browser goes to the callback or error callback URL",
      response: { schema: SuccessSchema, description: "Never: the answer is a redirect" },
    },
    async (c, { body }) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(body)) if (typeof value === "string") params.set(key, value);
      return finish(c, service, config, tools, c.req.param("provider") ?? "", params);
    },
  );
}

async function finish(
  c: Context<AuthEnv>,
  service: OAuthService,
  config: ResolvedConfig,
  tools: RequestTools,
  providerId: string,
  params: URLSearchParams,
): Promise<Response> {
  const cookie = readSoleCookie(c.req.header("cookie"), stateCookieName(config));
  const formPost = service.providers().find((p) => p.id === providerId)?.responseMode === "form_post";
  const headers = new Headers({ "cache-control": "no-store", "referrer-policy": "no-referrer" });
  // The flow is over whatever happens: its cookie goes.
  headers.append("set-cookie", stateCookie(config, "", 0, formPost));
  try {
    const done = await service.callback(providerId, params, typeof cookie === "string" ? cookie : null, tools.meta(c));
    if (done.signIn) headers.append("set-cookie", serializeCookie(done.signIn.cookie));
    headers.set("location", done.redirect);
  } catch (error) {
    if (!(error instanceof OAuthCallbackError)) throw error;
    headers.set("location", error.redirect);
  }
  return new Response(null, { status: 302, headers });
}

function registerAccounts(app: AuthApp, tools: RequestTools, service: OAuthService): void {
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

function registerAccountTokens(app: AuthApp, tools: RequestTools, service: OAuthService): void {
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

/**
 * Registers the social sign-in endpoints when `oauth()` is installed (else they answer 404).
 *
 * @example
 * registerOAuthRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerOAuthRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(OAUTH_PLUGIN_ID);
  if (!feature) return;
  registerSignIn(app, tools, feature.service);
  registerCallback(app, tools, feature.service);
  registerAccounts(app, tools, feature.service);
  registerAccountTokens(app, tools, feature.service);
}
