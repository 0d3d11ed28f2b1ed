import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { PasskeyCeremony, PasskeyService } from "@latchkey/core";
import type { AuthEnv } from "../../env.ts";
import { readCookie, serializeCookie } from "../../http/cookies.ts";
import { returnsToken } from "../../http/sign-in-response.ts";

// What the passkey routes share: the OpenAPI schemas, the descriptions' common text, and how a ceremony's
// challenge travels (the options answer's cookie or token, and where a verify finds it again).

export const TAG = "Passkeys";

/** The header a client that keeps tokens itself may send the challenge token in (instead of `challengeToken`). */
const CHALLENGE_HEADER = "latchkey-passkey";

export const ChallengeTokenField = z.string().max(256).optional().openapi({
  description:
    "The challenge token of the options answer, for clients that keep tokens themselves (`challengeToken`, or the `latchkey-passkey` header); browsers send the HttpOnly challenge cookie instead.",
});

/** A `PublicKeyCredential` as JSON (what `@simplewebauthn/browser` and `credential.toJSON()` give); checked in core. */
export const CredentialResponse = z
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

export const NameField = z
  .string()
  .max(64)
  .openapi({ description: "The user's label for the passkey (1 to 64 characters).", example: "MacBook" });

export const PasskeySchema = z
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

export const CeremonySchema = (name: string, what: string) =>
  z
    .object({
      options: z.record(z.string(), z.unknown()).openapi({ description: what }),
      expiresAt: z.string(),
      challengeToken: z.string().optional().openapi({
        description: "For clients that keep tokens themselves (never for browser pages): send it back with the verify.",
      }),
    })
    .openapi(name);

export const CHALLENGE_TEXT =
  "The challenge is random, single-use, lives 5 minutes and is bound to the client that asked: an HttpOnly cookie for browsers, `challengeToken` in the answer for clients that keep tokens themselves (sent back as `challengeToken` or the `latchkey-passkey` header).";

export const VERIFY_TEXT =
  "The challenge is spent before the response is looked at, so of two verifies of one challenge at most one succeeds, and a failed attempt needs new options. An unknown, expired, spent or another client's challenge: 400 `PASSKEY_CHALLENGE_INVALID`. A response that fails a check (origin, RP ID hash, user presence, user verification, signature, malformed data): 400 `INVALID_PASSKEY_RESPONSE`.";

/** The answer of an options route: the options, the challenge cookie, and the token for token clients. */
export function ceremonyAnswer<O>(c: Context<AuthEnv>, ceremony: PasskeyCeremony<O>): Response {
  c.header("set-cookie", serializeCookie(ceremony.cookie), { append: true });
  c.header("cache-control", "no-store");
  const body: Record<string, unknown> = { options: ceremony.options, expiresAt: ceremony.expiresAt };
  if (returnsToken(c)) body.challengeToken = ceremony.token;
  return c.json(body);
}

/** The challenge token a verify carries: the header, the body field, or the cookie. */
export function challengeTokenOf(
  c: Context<AuthEnv>,
  body: { challengeToken?: string },
  service: PasskeyService,
): string {
  return (
    c.req.header(CHALLENGE_HEADER)?.trim() ||
    body.challengeToken ||
    readCookie(c.req.header("cookie"), service.challengeCookieName) ||
    ""
  );
}
