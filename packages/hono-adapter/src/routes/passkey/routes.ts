import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { PASSKEYS_PLUGIN_ID, type PasskeyCeremony, type PasskeyService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import type { AuthEnv } from "../../env.ts";
import { readCookie, serializeCookie } from "../../http/cookies.ts";
import { returnsToken, signInResponse } from "../../http/sign-in-response.ts";
import { EmailField, SignInResponseSchema, SuccessSchema } from "../schemas.ts";

const TAG = "Passkeys";

/** The header a client that keeps tokens itself may send the challenge token in (instead of `challengeToken`). */
const CHALLENGE_HEADER = "latchkey-passkey";

const ChallengeTokenField = z.string().max(256).optional().openapi({
  description:
    "The challenge token of the options answer, for clients that keep tokens themselves (`challengeToken`, or the `latchkey-passkey` header); browsers send the HttpOnly challenge cookie instead.",
});

/** A `PublicKeyCredential` as JSON (what `@simplewebauthn/browser` and `credential.toJSON()` give); checked in core. */
const CredentialResponse = z
  .object({
    id: z.string().max(1400),
    rawId: z.string().max(1400),
    type: z.string().max(32),
    response: z.record(z.string(), z.unknown()),
    authenticatorAttachment: z.string().max(32).nullable().optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi({
    description:
      "The browser's answer as JSON (`@simplewebauthn/browser`'s `startRegistration()` / `startAuthentication()`, or `PublicKeyCredential.toJSON()`): base64url fields, each at most 32 KiB.",
  });

const NameField = z
  .string()
  .max(64)
  .openapi({ description: "The user's label for the passkey (1 to 64 characters).", example: "MacBook" });

const PasskeySchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    credentialId: z.string().openapi({ description: "The credential id (base64url)." }),
    deviceType: z.enum(["singleDevice", "multiDevice"]).openapi({
      description: "`multiDevice`: the passkey may be synced between devices (backup eligible).",
    }),
    backedUp: z.boolean().openapi({ description: "Whether it was backed up (synced) at its last use." }),
    transports: z.array(z.string()),
    aaguid: z.string().openapi({ description: "The authenticator model (all zeros when it hides it)." }),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi("Passkey");

const CeremonySchema = (name: string, what: string) =>
  z
    .object({
      options: z.record(z.string(), z.unknown()).openapi({ description: what }),
      expiresAt: z.string(),
      challengeToken: z.string().optional().openapi({
        description: "For clients that keep tokens themselves (never for browser pages): send it back with the verify.",
      }),
    })
    .openapi(name);

const CHALLENGE_TEXT =
  "The challenge is random, single-use, lives 5 minutes and is bound to the client that asked: an HttpOnly cookie for browsers, `challengeToken` in the answer for clients that keep tokens themselves (sent back as `challengeToken` or the `latchkey-passkey` header).";

const VERIFY_TEXT =
  "The challenge is spent before the response is looked at, so of two verifies of one challenge at most one succeeds, and a failed attempt needs new options. An unknown, expired, spent or another client's challenge: 400 `PASSKEY_CHALLENGE_INVALID`. A response that fails a check (origin, RP ID hash, user presence, user verification, signature, malformed data): 400 `INVALID_PASSKEY_RESPONSE`.";

/** The answer of an options route: the options, the challenge cookie, and the token for token clients. */
function ceremonyAnswer<O>(c: Context<AuthEnv>, ceremony: PasskeyCeremony<O>): Response {
  c.header("set-cookie", serializeCookie(ceremony.cookie), { append: true });
  c.header("cache-control", "no-store");
  const body: Record<string, unknown> = { options: ceremony.options, expiresAt: ceremony.expiresAt };
  if (returnsToken(c)) body.challengeToken = ceremony.token;
  return c.json(body);
}

/** The challenge token a verify carries: the header, the body field, or the cookie. */
function challengeTokenOf(c: Context<AuthEnv>, body: { challengeToken?: string }, service: PasskeyService): string {
  return (
    c.req.header(CHALLENGE_HEADER)?.trim() ||
    body.challengeToken ||
    readCookie(c.req.header("cookie"), service.challengeCookieName) ||
    ""
  );
}

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

function registerSignUp(app: AuthApp, tools: RequestTools, service: PasskeyService): void {
  const { config } = tools.core;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/sign-up/options",
      rateLimit: { window: "1m", max: 10 },
      operationId: "passkeySignUpOptions",
      tag: TAG,
      rejectNavigation: true,
      summary: "Start signing up with a passkey",
      description: `Only with \`passkeys({ allowPasskeyOnlyAccounts: true })\` (404 otherwise). Options for \`navigator.credentials.create()\` for a new account of \`email\` without a password: a discoverable credential, attestation \`none\`, user verification \`${service.options.userVerification}\`. An email that has an account is 422 \`USER_ALREADY_EXISTS\` (as \`/sign-up/email\` answers), before the authenticator makes anything. ${CHALLENGE_TEXT}`,
      body: z.object({
        email: EmailField,
        name: z.string().max(256).nullish().openapi({ description: "The user's display name." }),
      }),
      response: {
        schema: CeremonySchema("PasskeySignUpOptions", "`PublicKeyCredentialCreationOptionsJSON`"),
        description: "The options; sets the challenge cookie",
      },
      errors: [422],
    },
    async (c, { body }) => ceremonyAnswer(c, await service.signUpOptions(body, tools.meta(c))),
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/passkey/sign-up/verify",
      rateLimit: { window: "1m", max: 10 },
      operationId: "passkeySignUpVerify",
      tag: TAG,
      rejectNavigation: true,
      summary: "Finish signing up with a passkey",
      description: `Verifies the browser's answer to the options of \`/passkey/sign-up/options\` as a registration is verified, then creates the user (email not verified, no password), the passkey and the first session together, and signs in like \`/sign-up/email\` (session cookie, \`{user, session}\`, \`credentials\` for token clients, \`rememberMe\`). ${VERIFY_TEXT} An email taken meanwhile is 422 \`USER_ALREADY_EXISTS\` and writes nothing; the \`beforeUserCreated\` and \`beforeSignIn\` hooks (path \`sign-up-passkey\`) may refuse (403). Nothing is emailed: ask for the verification code (\`emailOtp()\`: \`/email-otp/send-verification-otp\`) or link (\`/send-verification-email\`) from this signed-in page; a proof that carries this session keeps the passkey, one from another browser removes it (pre-account hijacking). Emits \`UserSignedUp\`, \`PasskeyAdded\` and \`UserSignedIn\`.`,
      body: z.object({
        response: CredentialResponse,
        name: NameField.optional(),
        rememberMe: z.boolean().optional(),
        challengeToken: ChallengeTokenField,
      }),
      response: { schema: SignInResponseSchema, description: "Signed up and in; sets the session cookie" },
      errors: [403, 409, 422],
    },
    async (c, { body }) => {
      const token = challengeTokenOf(c, body, service);
      const input = {
        token,
        response: body.response,
        name: body.name,
        ...(body.rememberMe === undefined ? {} : { rememberMe: body.rememberMe }),
      };
      const result = await service.signUp(input, tools.meta(c));
      return signInResponse(c, result, config, {}, [service.clearedCookie()]);
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
  if (feature.service.options.allowPasskeyOnlyAccounts) registerSignUp(app, tools, feature.service);
  registerManagement(app, tools, feature.service);
}
