import { z } from "@hono/zod-openapi";
import { TWO_FACTOR_PLUGIN_ID, type AuthCore, type AuthErrorCode } from "@latchkey/core";
import { ERROR_STATUS } from "../http/error-status.ts";

/** Every code an error body may carry (typed clients get them as a union). */
const ERROR_CODES = Object.keys(ERROR_STATUS) as [AuthErrorCode, ...AuthErrorCode[]];

export const ErrorSchema = z
  .object({
    code: z.enum(ERROR_CODES).openapi({ example: "INVALID_CREDENTIALS" }),
    message: z.string().openapi({ example: "Invalid email or password" }),
    details: z.unknown().optional(),
  })
  .openapi("Error");

export const UserSchema = z
  .object({
    id: z.string(),
    email: z.string().openapi({ example: "ada@example.com" }),
    emailVerified: z.boolean(),
    name: z.string().nullable(),
    image: z.string().nullable(),
    username: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).openapi({
      description: "The user's own data: the user can replace it (`PATCH /user`); never trust it for authorization",
    }),
    appMetadata: z.record(z.string(), z.unknown()).openapi({
      description: "Server-only data (roles, plan): written only by server code (`auth.api.updateUser`)",
      example: { role: "admin" },
    }),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("User");

export const SessionSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    expiresAt: z.string().openapi({ format: "date-time" }),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    impersonatedBy: z
      .string()
      .optional()
      .openapi({ description: "The admin's user id, on a session an admin started as this user (`admin()`)" }),
    activeOrganizationId: z
      .string()
      .optional()
      .openapi({ description: "The organization the session acts for (`organizations()`); absent when none." }),
  })
  .openapi("Session");

const CredentialsSchema = z
  .object({
    token: z.string().openapi({ description: "The session token, for `Authorization: Bearer` clients. Shown once." }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Credentials", {
    description:
      "Only for a client that takes the token itself: a request with `latchkey-credentials: bearer`, or one without `Origin` and Fetch Metadata (not a browser page). A browser page is served by the HttpOnly cookie alone, so its scripts never see the token.",
  });

export const SignInResponseSchema = z
  .object({ user: UserSchema, session: SessionSchema, credentials: CredentialsSchema.optional() })
  .openapi("SignInResponse");
/** The answer of a sign-in that needs its second step first (`twoFactor()`): no session yet. */
const TwoFactorRequiredSchema = z
  .object({
    twoFactorRequired: z.literal(true),
    expiresAt: z.string().openapi({ format: "date-time", description: "When the pending sign-in dies." }),
    twoFactorToken: z.string().optional().openapi({
      description:
        "The pending sign-in's token, for clients that keep tokens themselves (browsers get an HttpOnly cookie): send it to `POST /two-factor/verify`.",
    }),
    deviceToken: z.string().optional(),
  })
  .openapi("TwoFactorRequired");

/**
 * A sign-in route's answer schema: with `twoFactor()` installed it may also be `TwoFactorRequired`.
 *
 * @example
 * response: { schema: signInAnswer(tools.core, SignInResponseSchema), description: "Signed in" },
 */
export function signInAnswer(core: Pick<AuthCore, "plugins">, schema: z.ZodType): z.ZodType {
  return core.plugins.has(TWO_FACTOR_PLUGIN_ID) ? z.union([schema, TwoFactorRequiredSchema]) : schema;
}
export const SuccessSchema = z.object({ success: z.literal(true) }).openapi("Success");
export const UserResponseSchema = z.object({ user: UserSchema }).openapi("UserResponse");

/** Emails: checked for shape in core (400 INVALID_EMAIL); here only bounded. */
export const EmailField = z.string().max(320).openapi({ format: "email", example: "ada@example.com" });
/** Passwords: 8..128 enforced in core with clear codes; bounded here so nothing huge is hashed. */
export const PasswordField = z
  .string()
  .max(1024)
  .openapi({ format: "password", example: "correct horse battery staple" });

/** `rememberMe` of the sign-in bodies. */
export const RememberMeField = z.boolean().optional().openapi({
  description:
    "Default true. False: a session of at most `session.shortExpiresIn` that does not slide, and a cookie without `Max-Age` (it ends with the browser).",
});
