import { z } from "@hono/zod-openapi";

export const TAG = "Social sign-in";

export const UrlField = (what: string) =>
  z
    .string()
    .max(2048)
    .nullish()
    .openapi({
      description: `${what}: a path on \`baseUrl\` or a URL on a trusted origin (else 400 \`INVALID_CALLBACK_URL\`).`,
      example: "/dashboard",
    });

export const ProviderField = z
  .string()
  .max(64)
  .openapi({ description: "A configured provider's id", example: "github" });
export const AccountIdField = z
  .string()
  .max(255)
  .nullish()
  .openapi({ description: "The provider's subject, when several accounts of this provider are linked" });
export const ScopesField = z
  .array(z.string().max(128))
  .max(32)
  .nullish()
  .openapi({ description: "Scopes to ask for besides the provider's own" });

export const IdTokenField = z
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
export const AuthorizationResponse = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

export const UrlSchema = z
  .object({ url: z.string().openapi({ description: "The provider's authorization URL: send the browser there." }) })
  .openapi("SocialRedirect");

export const LinkedAccountSchema = z
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

export const AccessTokenSchema = z
  .object({
    accessToken: z.string(),
    accessTokenExpiresAt: z.string().nullable().openapi({ format: "date-time" }),
    scopes: z.array(z.string()),
    idToken: z.string().nullable(),
  })
  .openapi("ProviderAccessToken");
