import { z } from "@hono/zod-openapi";
import type { PasskeyService } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { EmailField, SignInResponseSchema } from "../schemas.ts";
import {
  CeremonySchema,
  CHALLENGE_TEXT,
  ChallengeTokenField,
  ceremonyAnswer,
  challengeTokenOf,
  CredentialResponse,
  NameField,
  TAG,
  VERIFY_TEXT,
} from "./shared.ts";

/**
 * The passkey sign-up routes (`allowPasskeyOnlyAccounts`): `POST /passkey/sign-up/options` and
 * `POST /passkey/sign-up/verify`.
 *
 * @example
 * if (service.options.allowPasskeyOnlyAccounts) registerPasskeySignUp(app, tools, service);
 */
export function registerPasskeySignUp(app: AuthApp, tools: RequestTools, service: PasskeyService): void {
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
