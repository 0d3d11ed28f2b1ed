import { z } from "@hono/zod-openapi";
import { defineRoute, type AuthApp } from "../define.ts";
import { setCookie } from "../../http/cookies.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { SuccessSchema } from "../schemas.ts";

const TAG = "Sessions";

const SessionListItemSchema = z
  .object({
    id: z.string(),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time", description: "Last sliding renewal" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    current: z.boolean().openapi({ description: "True for the session making the request" }),
  })
  .openapi("SessionListItem");

const RevokedSchema = z
  .object({ revoked: z.number().int().min(0).openapi({ description: "How many sessions were revoked" }) })
  .openapi("RevokedSessions");

/** The sessions a user can see and end: GET /list-sessions and the three revocations (core: always on). */
export function registerSessionRoutes(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  const management = core.sessionManagement;

  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/list-sessions",
      operationId: "listSessions",
      tag: TAG,
      authenticated: true,
      summary: "List the user's sessions",
      description:
        'Every live session of the signed-in user (a "devices" page), newest first, with `current: true` on the one making the request. No token or token hash is ever part of the answer.',
      response: {
        schema: z.object({ sessions: z.array(SessionListItemSchema) }).openapi("SessionList"),
        description: "The sessions",
      },
    },
    async (c, { session: s }) => c.json(await management.list(s.userRecord.id, s.session.id)),
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/revoke-session",
      operationId: "revokeSession",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Sign out one session",
      description:
        "Ends one session of the signed-in user, which is refused from its next request on. A session of another user and an unknown id are the same 404 `SESSION_NOT_FOUND`, so ids cannot be probed. Revoking the current session also clears the cookie.",
      body: z.object({ sessionId: z.string().min(1).max(128) }),
      response: { schema: SuccessSchema, description: "Revoked" },
      errors: [404],
    },
    async (c, { body, session: s }) => {
      const result = await management.revoke(s.userRecord.id, body.sessionId, tools.meta(c));
      if (body.sessionId === s.session.id) setCookie(c, core.ctx.sessions.clearCookie());
      return c.json(result);
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/revoke-other-sessions",
      operationId: "revokeOtherSessions",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Sign out everywhere else",
      description: "Ends every session of the signed-in user except the current one, which stays signed in.",
      response: { schema: RevokedSchema, description: "How many sessions were revoked" },
    },
    async (c, { session: s }) =>
      c.json(await management.revokeAll(s.userRecord.id, s.session.id, "revoke-other-sessions", tools.meta(c))),
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/revoke-sessions",
      operationId: "revokeSessions",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Sign out everywhere",
      description: "Ends every session of the signed-in user, the current one included, and clears the cookie.",
      response: { schema: RevokedSchema, description: "How many sessions were revoked" },
    },
    async (c, { session: s }) => {
      const result = await management.revokeAll(s.userRecord.id, null, "revoke-sessions", tools.meta(c));
      setCookie(c, core.ctx.sessions.clearCookie());
      return c.json(result);
    },
  );
}
