import { z } from "@hono/zod-openapi";
import { PASSKEYS_PLUGIN_ID, type PasskeyService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { serializeCookie } from "../../http/cookies.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { SignInResponseSchema, SuccessSchema } from "../schemas.ts";
import {
  CeremonySchema,
  CHALLENGE_TEXT,
  ChallengeTokenField,
  ceremonyAnswer,
  challengeTokenOf,
  CredentialResponse,
  NameField,
  PasskeySchema,
  TAG,
  VERIFY_TEXT,
} from "./shared.ts";
import { registerPasskeySignUp } from "./sign-up.ts";

function registerRegistration(app: AuthApp, tools: RequestTools, service: PasskeyService): void {
  const uv = service.options.userVerification;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/register/options",
      rateLimit: { window: "1m", max: 10 },
      operationId: "passkeyRegisterOptions",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Start registering a passkey",
      description: `Options for \`navigator.credentials.create()\`: a discoverable credential (resident key required), attestation \`none\`, user verification \`${uv}\`, the user's passkeys excluded (an authenticator that holds one refuses). ${CHALLENGE_TEXT}`,
      response: {
        schema: CeremonySchema("PasskeyRegistrationOptions", "`PublicKeyCredentialCreationOptionsJSON`"),
        description: "The options; sets the challenge cookie",
      },
    },
    async (c, { session }) => ceremonyAnswer(c, await service.registrationOptions(session.userRecord)),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/register/verify",
      rateLimit: { window: "1m", max: 10 },
      operationId: "passkeyRegisterVerify",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Finish registering a passkey",
      description: `Verifies the browser's answer to the options of \`/passkey/register/options\` (which must be this user's) and stores the passkey: origin (one of \`origins\`), RP ID hash, user presence, user verification (\`${uv}\`), the attestation. ${VERIFY_TEXT} 409 \`PASSKEY_ALREADY_REGISTERED\` for a credential registered already. Emits \`PasskeyAdded\`.`,
      body: z.object({ response: CredentialResponse, name: NameField.optional(), challengeToken: ChallengeTokenField }),
      response: { schema: PasskeySchema, description: "The new passkey" },
      errors: [409],
    },
    async (c, { body, session }) => {
      const token = challengeTokenOf(c, body, service);
      const passkey = await service.register(
        session.userRecord,
        { token, response: body.response, name: body.name },
        tools.meta(c),
        session.session.id,
      );
      c.header("set-cookie", serializeCookie(service.clearedCookie()), { append: true });
      return c.json(passkey);
    },
  );
}

function registerAuthentication(app: AuthApp, tools: RequestTools, service: PasskeyService): void {
  const { config } = tools.core;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/authenticate/options",
      rateLimit: { window: "1m", max: 30 },
      operationId: "passkeyAuthenticateOptions",
      tag: TAG,
      rejectNavigation: true,
      summary: "Start a passkey sign-in",
      description: `Options for \`navigator.credentials.get()\`. Without \`email\`: an empty \`allowCredentials\`, so the browser offers every passkey of this site (a discoverable sign-in, or autofill with \`mediation: "conditional"\`). With it: that user's passkeys (an unknown address answers like a user without any). ${CHALLENGE_TEXT}`,
      body: z.object({ email: z.string().max(320).optional() }),
      response: {
        schema: CeremonySchema("PasskeyAuthenticationOptions", "`PublicKeyCredentialRequestOptionsJSON`"),
        description: "The options; sets the challenge cookie",
      },
    },
    async (c, { body }) => ceremonyAnswer(c, await service.authenticationOptions({ email: body.email })),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/authenticate/verify",
      rateLimit: { window: "1m", max: 10 },
      operationId: "passkeyAuthenticateVerify",
      tag: TAG,
      rejectNavigation: true,
      summary: "Sign in with a passkey",
      description: `Verifies the browser's answer and signs in like any sign-in (session cookie, \`{user, session}\`, \`credentials\` for token clients, \`rememberMe\`, the \`beforeSignIn\` hook, \`UserSignedIn\` with \`method: "passkey"\`). ${VERIFY_TEXT} The credential must be registered (401 \`UNKNOWN_PASSKEY\`), the response's user handle must be its owner's, and the signature counter must advance when either counter is non-zero (401 \`PASSKEY_COUNTER_REGRESSION\` and the event \`PasskeyCounterRegression\`: the passkey may have been copied). A locked account (\`lockout\`) is 429 \`ACCOUNT_LOCKED\`. With user verification the passkey is both factors and skips \`twoFactor()\`'s second step; without it (\`userVerification: "preferred"\`) the answer may be \`{twoFactorRequired: true}\`.`,
      body: z.object({
        response: CredentialResponse,
        rememberMe: z.boolean().optional(),
        challengeToken: ChallengeTokenField,
      }),
      response: { schema: SignInResponseSchema, description: "Signed in; sets the session cookie" },
      errors: [401, 429],
    },
    async (c, { body }) => {
      const token = challengeTokenOf(c, body, service);
      const input = {
        token,
        response: body.response,
        ...(body.rememberMe === undefined ? {} : { rememberMe: body.rememberMe }),
      };
      const outcome = await service.signIn(input, tools.meta(c));
      return signInResponse(c, outcome, config, {}, [service.clearedCookie()]);
    },
  );
}

function registerManagement(app: AuthApp, tools: RequestTools, service: PasskeyService): void {
  const IdParam = z.object({
    id: z.string().max(64).openapi({ description: "The passkey's id (from `/passkey/list`)." }),
  });
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/passkey/list",
      operationId: "listPasskeys",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "The user's passkeys",
      description: "The signed-in user's passkeys, oldest first (never their public keys).",
      response: { schema: z.array(PasskeySchema).openapi("PasskeyList"), description: "The passkeys" },
    },
    async (c, { session }) => c.json(await service.list(session.userRecord.id)),
  );
  defineRoute(
    app,
    tools,
    {
      method: "patch",
      path: "/passkey/{id}",
      rateLimit: { window: "1m", max: 30 },
      operationId: "renamePasskey",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Rename a passkey",
      description:
        "Sets the passkey's name (1 to 64 characters). Another user's or an unknown passkey: 404 `PASSKEY_NOT_FOUND`.",
      params: IdParam,
      body: z.object({ name: NameField }),
      response: { schema: PasskeySchema, description: "The renamed passkey" },
      errors: [404],
    },
    async (c, { body, session }) =>
      c.json(await service.rename(session.userRecord.id, c.req.param("id") ?? "", body.name)),
  );
  defineRoute(
    app,
    tools,
    {
      method: "delete",
      path: "/passkey/{id}",
      rateLimit: { window: "1m", max: 10 },
      operationId: "deletePasskey",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      fresh: true,
      summary: "Delete a passkey",
      description:
        "Deletes the passkey (sign-ins with it fail from now: 401 `UNKNOWN_PASSKEY`). Never the user's last way to sign in: 409 `LAST_ACCOUNT` when the user has no account (password, linked provider) and no other passkey, decided atomically (two deletes at once cannot remove both of the last two). Another user's or an unknown passkey: 404 `PASSKEY_NOT_FOUND`. Emits `PasskeyRemoved`.",
      params: IdParam,
      response: { schema: SuccessSchema, description: "Deleted" },
      errors: [404, 409],
    },
    async (c, { session }) =>
      c.json(await service.delete(session.userRecord.id, c.req.param("id") ?? "", tools.meta(c))),
  );
}

/**
 * Registers the passkey endpoints when `passkeys()` is installed (else they answer 404).
 *
 * @example
 * registerPasskeyRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerPasskeyRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(PASSKEYS_PLUGIN_ID);
  if (!feature) return;
  registerRegistration(app, tools, feature.service);
  registerAuthentication(app, tools, feature.service);
  if (feature.service.options.allowPasskeyOnlyAccounts) registerPasskeySignUp(app, tools, feature.service);
  registerManagement(app, tools, feature.service);
}
