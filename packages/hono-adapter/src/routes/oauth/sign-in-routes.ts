import { z } from "@hono/zod-openapi";
import type { OAuthService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { SignInResponseSchema, signInAnswer, SuccessSchema } from "../schemas.ts";
import { finish, start } from "./flow.ts";
import {
  AuthorizationResponse,
  IdTokenField,
  ProviderField,
  ScopesField,
  TAG,
  UrlField,
  UrlSchema,
} from "./schemas.ts";

export function registerSignIn(app: AuthApp, tools: RequestTools, service: OAuthService): void {
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

export function registerCallback(app: AuthApp, tools: RequestTools, service: OAuthService): void {
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
