import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { defineRoute, type AuthApp } from "../define.ts";
import { setCookie } from "../../http/cookies.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { ambiguousSessionCookie, clearingCookies, sessionToken, type RequestTools } from "../../middleware/session.ts";
import { jsonAnswer } from "../../middleware/security-headers.ts";
import { sessionAnswerJson } from "@latchkey/core/internal";
import {
  EmailField,
  PasswordField,
  RememberMeField,
  SessionSchema,
  SignInResponseSchema,
  signInAnswer,
  SuccessSchema,
  UserSchema,
} from "../schemas.ts";
import { registerPasswordRoutes, TAG } from "./password-routes.ts";

function registerSignUpEmail(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-up/email",
      rateLimit: { window: "1m", max: 10 },
      hashesPassword: true,
      operationId: "signUpEmail",
      tag: TAG,
      rejectNavigation: true,
      summary: "Create an account with email and password",
      description:
        "Creates the user and a credential account, signs in and sets the session cookie. With `emailVerification.requireVerifiedForSignIn` no session is issued and the answer does not reveal who has an account: `{success: true}` for new and existing emails alike (same status, body and headers, a password hashed either way); the new user receives a verification email, the owner of an existing one a notice (template `existing-account`). Without that option an existing email is 422 `USER_ALREADY_EXISTS` (a session is issued at once, so the answer could not hide it). `emailPassword.passwordPolicy` applies (400 `WEAK_PASSWORD`, `PASSWORD_COMPROMISED`); the `beforeUserCreated` hook may refuse (403 `SIGN_UP_REJECTED`).",
      body: z.object({
        email: EmailField,
        password: PasswordField,
        name: z.string().max(256).nullish(),
        username: z.string().max(64).nullish(),
        image: z.string().max(2048).nullish(),
        appMetadata: z
          .unknown()
          .optional()
          .openapi({ description: "Server-only: always 400 `SERVER_ONLY_PROPERTY` here (use `auth.api.createUser`)" }),
      }),
      response: {
        schema: z.union([SignInResponseSchema, SuccessSchema]),
        description: "Signed up (and in), or `{success: true}` when verification is required",
      },
      errors: [403, 409, 422],
    },
    async (c, { body }) => {
      const input = { ...body, appMetadata: body.appMetadata as Record<string, unknown> | undefined };
      const result = await core.emailPassword.signUp(input, tools.meta(c));
      return "user" in result ? signInResponse(c, result, core.config) : c.json(result);
    },
  );
}

function registerSignInEmail(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-in/email",
      rateLimit: { window: "1m", max: 10 },
      hashesPassword: true,
      deviceAware: true,
      operationId: "signInEmail",
      tag: TAG,
      rejectNavigation: true,
      summary: "Sign in with email (or username) and password",
      description:
        "A new session token on every sign-in (no fixation). Wrong password and unknown email answer identically (401 `INVALID_CREDENTIALS`). Attempts count towards the account lockout before the password is checked (the email and the username of one account share it; 429 `ACCOUNT_LOCKED`). `rememberMe: false` gives a session of at most `session.shortExpiresIn` with a cookie that ends with the browser. After the right password, the `beforeSignIn` hook may refuse (403 `SIGN_IN_REJECTED`, not counted as a failure). A successful sign-in sets the device cookie (`__Host-latchkey.device`, HttpOnly, rotated on every use, revoked by a password change or reset); clients that take their tokens get it as `credentials.deviceToken` and send it back in the `latchkey-device` header or the `deviceToken` field. A sign-in presenting a valid device token for the account it names is not subject to the per-IP and per-network rules, and its failures lock that device only (429 `ACCOUNT_LOCKED`): an account locked by strangers' wrong passwords still signs in from its owner's known devices.",
      // One object rather than a union, so a missing field is reported by name (`email`, `password`).
      body: z
        .object({
          email: EmailField.optional(),
          username: z.string().min(1).max(64).optional().openapi({ description: "Instead of `email`" }),
          password: PasswordField,
          rememberMe: RememberMeField,
          deviceToken: z.string().max(200).optional().openapi({
            description:
              "The device token of an earlier sign-in (`credentials.deviceToken`), for clients without cookies; the `latchkey-device` header or the device cookie work too",
          }),
        })
        // `when`: also runs when other fields failed, so `{}` names `email` next to `password`.
        .refine((b) => b.email !== undefined || b.username !== undefined, {
          path: ["email"],
          message: "Required: email (or username)",
          when: (payload) =>
            typeof payload.value === "object" && payload.value !== null && !Array.isArray(payload.value),
        })
        .transform((b) =>
          b.email !== undefined
            ? { email: b.email, password: b.password, rememberMe: b.rememberMe, deviceToken: b.deviceToken }
            : {
                username: b.username as string,
                password: b.password,
                rememberMe: b.rememberMe,
                deviceToken: b.deviceToken,
              },
        ),
      response: { schema: signInAnswer(core, SignInResponseSchema), description: "Signed in; sets the session cookie" },
      errors: [401, 403],
    },
    async (c, { body, device }) => {
      const options = device ? { deviceToken: device.token, anonymousLimits: device.anonymousLimits } : {};
      return signInResponse(c, await core.emailPassword.signIn(body, tools.meta(c), options), core.config);
    },
  );
}

function registerSignOut(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-out",
      operationId: "signOut",
      tag: TAG,
      summary: "Sign out",
      description: "Deletes the current session and clears the cookie. Answers success without a session too.",
      response: { schema: SuccessSchema, description: "Signed out" },
    },
    async (c) => {
      const found = sessionToken(c, core.config.cookies.name);
      if (found) await core.emailPassword.signOut(found.token, tools.meta(c));
      // Two session cookies (neither is trusted, neither is signed out): every one this answer can reach is cleared.
      if (found === null && ambiguousSessionCookie(c, core.config.cookies.name))
        for (const value of clearingCookies(c, core)) c.header("set-cookie", value, { append: true });
      else setCookie(c, core.ctx.sessions.clearCookie());
      return c.json({ success: true as const });
    },
  );
}

function registerGetSession(app: AuthApp, tools: RequestTools): void {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/get-session",
      operationId: "getSession",
      tag: TAG,
      summary: "The current session",
      description:
        "`{user, session}` for a valid cookie or Bearer token, else `null` (200). Slides the session forward after `session.updateAge`. With the JWT plugin the `set-auth-jwt` header carries a fresh JWT.",
      response: {
        schema: z.object({ user: UserSchema, session: SessionSchema }).nullable(),
        description: "The session, or null",
        headers: { "set-auth-jwt": { description: "A JWT for the session (JWT plugin)", schema: { type: "string" } } },
      },
    },
    (c) => {
      if (tools.afterGetSession.length === 0) {
        // Known without the store (no token, or a session the lookup cache holds): answered at once, with the JSON
        // made once for the cache entry; no promise on the way.
        const known = tools.knownAnswer(c);
        if (known !== undefined) return jsonAnswer(c, known, tools.core.config);
      }
      return sessionAnswer(c, tools);
    },
  );
}

/** get-session's answer once the session is looked up (through the cache or at the store), with the hooks' headers. */
async function sessionAnswer(c: Context, tools: RequestTools): Promise<Response> {
  const s = await tools.session(c);
  if (!s) return jsonAnswer(c, "null", tools.core.config);
  // From the lookup cache, the JSON of the answer was made once for the cache entry (the same bytes).
  const json = sessionAnswerJson(s) ?? JSON.stringify({ user: s.user, session: s.session });
  const answer = jsonAnswer(c, json, tools.core.config);
  if (tools.afterGetSession.length === 0) return answer;
  // `jsonAnswer` assigned the answer (with what a host middleware set before the route): the hooks edit the
  // final headers. Assigning it again would make Hono rebuild it around a stream of its body.
  for (const hook of tools.afterGetSession) await hook(c, s, c.res.headers);
  return c.res;
}

export function registerEmailPasswordRoutes(app: AuthApp, tools: RequestTools): void {
  registerSignUpEmail(app, tools);
  registerSignInEmail(app, tools);
  registerSignOut(app, tools);
  registerGetSession(app, tools);
  registerPasswordRoutes(app, tools);
}
