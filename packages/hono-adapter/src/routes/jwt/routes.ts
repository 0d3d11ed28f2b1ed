import { z } from "@hono/zod-openapi";
import { describeError, JWT_PLUGIN_ID } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";

const TAG = "JWT";

const TokenResponseSchema = z
  .object({
    token: z.string().openapi({
      description: 'Compact JWS, header `{alg, kid, typ: "JWT"}`',
      example: "eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIuLi4ifQ.c2ln",
    }),
  })
  .openapi("JwtToken");

const PublicJwkSchema = z
  .object({
    kty: z.string().openapi({ example: "OKP" }),
    kid: z.string(),
    alg: z.string().openapi({ example: "EdDSA" }),
    use: z.literal("sig"),
    crv: z.string().optional(),
    x: z.string().optional(),
    y: z.string().optional(),
    n: z.string().optional(),
    e: z.string().optional(),
  })
  .openapi("PublicJwk");

const JwksSchema = z.object({ keys: z.array(PublicJwkSchema) }).openapi("Jwks");

const STATELESS =
  "**JWTs are stateless: signing out, resetting the password or revoking sessions does not invalidate a JWT already issued; it stays valid until its `exp`.** Keep `expiresIn` short (default 15 minutes).";

const TOKEN_DESCRIPTION = `Exchanges the current session (cookie or \`Authorization: Bearer\`) for a signed JWT. Claims: \`sub\` (user id), \`sid\` (session id), \`email\`, \`email_verified\`, \`iat\`, \`exp\`, \`iss\`, \`aud\`, plus the \`payloadBuilder\`'s. Verify it with the keys from the JWKS endpoint. 401 \`INVALID_CREDENTIALS\` without a session; 500 \`JWT_KEY_UNREADABLE\` when the stored signing key cannot be decrypted with the configured secret (see docs/jwt.md).\n\n${STATELESS}`;

/** `GET|POST /token`, `GET /jwks` and the `set-auth-jwt` get-session header, when `jwt()` is installed. */
export function registerJwtRoutes(app: AuthApp, tools: RequestTools): void {
  const service = tools.core.plugins.get(JWT_PLUGIN_ID)?.service;
  if (!service) return;
  const { tokenPath, jwksPath, disableSettingJwtHeader } = service.options;
  // As long as an instance caches its own key listing: a scheduled key is published twice this long before it
  // signs, so a verifier's cached answer always holds it in time. No `public`: shared caches need not keep it.
  const jwksCacheControl = `max-age=${Math.max(1, Math.floor(service.options.keyCacheTtlMs / 1000))}`;

  if (!disableSettingJwtHeader) {
    tools.afterGetSession.push(async (_c, session, headers) => {
      try {
        headers.set("set-auth-jwt", await service.sign(session));
        // For hosts running their own CORS middleware; createAuth({ cors }) already lists it.
        const exposed = headers.get("access-control-expose-headers") ?? "";
        if (!/(^|,)\s*set-auth-jwt\s*(,|$)/i.test(exposed))
          headers.append("access-control-expose-headers", "set-auth-jwt");
      } catch (error) {
        // get-session must keep answering: the session is fine, only the convenience JWT is missing.
        tools.core.logger.error({ error: describeError(error) }, "set-auth-jwt omitted");
      }
    });
  }

  for (const method of ["post", "get"] as const) {
    defineRoute(
      app,
      tools,
      {
        method,
        path: tokenPath,
        operationId: method === "post" ? "createToken" : "getToken",
        tag: TAG,
        authenticated: true,
        // Signing needs a valid session and costs one signature: like get-session, not a write worth a counter.
        globalRateLimit: false,
        summary: method === "post" ? "Exchange the session for a JWT" : "Exchange the session for a JWT (GET form)",
        description: TOKEN_DESCRIPTION,
        response: { schema: TokenResponseSchema, description: "`{token}`; `Cache-Control: no-store`" },
        errors: [500],
      },
      async (c, { session }) => {
        return c.json({ token: await service.sign(session) });
      },
    );
  }

  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: jwksPath,
      operationId: "getJwks",
      tag: TAG,
      summary: "Public keys that verify the JWTs",
      description: `The JWKS: the current key first, then retired keys still within \`gracePeriod\`. Only public members (never \`d\`, \`p\`, \`q\`, \`dp\`, \`dq\`, \`qi\`, \`k\`). A scheduled next key is listed \`2 × keyCacheTtl\` before it signs. Cacheable for \`keyCacheTtl\` (\`Cache-Control: ${jwksCacheControl}\`); a verifier that meets an unknown \`kid\` should re-fetch.\n\n${STATELESS}`,
      response: { schema: JwksSchema, description: "`{keys: [...]}`" },
    },
    async () =>
      new Response(await service.jwksJson(), {
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": jwksCacheControl },
      }),
  );
}
