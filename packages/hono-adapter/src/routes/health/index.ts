import { z } from "@hono/zod-openapi";
import { databaseUnavailable, isDatabaseUnavailable } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import { errorResponse } from "../../http/errors.ts";
import type { RequestTools } from "../../middleware/session.ts";

/**
 * `GET /health` (mount-relative, e.g. `/auth/health`) for load balancers: 200 `{status: "ok"}` when the store
 * answers one round trip, else 503 `DATABASE_UNAVAILABLE` with `Retry-After`. Always registered; not rate limited.
 */
export function registerHealthRoutes(app: AuthApp, tools: RequestTools): void {
  const { store } = tools.core.ctx;
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/health",
      operationId: "getHealth",
      tag: "Health",
      globalRateLimit: false,
      summary: "Health of the auth service and its database",
      description:
        '200 `{status: "ok"}` when the database answers; 503 `DATABASE_UNAVAILABLE` (with `Retry-After`) when it does not. Answers within the store\'s query timeout.',
      response: {
        schema: z.object({ status: z.literal("ok") }).openapi("Health"),
        description: "The database answered",
      },
    },
    async (c) => {
      try {
        await store.ping();
      } catch (error) {
        // Whatever the store threw, the answer for a load balancer is the same: not ready.
        return errorResponse(isDatabaseUnavailable(error) ? error : databaseUnavailable(error));
      }
      return c.json({ status: "ok" as const });
    },
  );
}
