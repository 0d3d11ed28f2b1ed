import { z } from "@hono/zod-openapi";
import { databaseUnavailable, isDatabaseUnavailable } from "@latchkey/core/internal";
import { defineRoute, type AuthApp } from "../define.ts";
import { errorResponse } from "../../http/errors.ts";
import type { RequestTools } from "../../middleware/session.ts";

/**
 * `GET /health` (mount-relative, e.g. `/auth/health`) for load balancers: 200 `{status: "ok"}` when the store
 * (and `counters`, when they have a connection of their own) answers one round trip, else 503 `DATABASE_UNAVAILABLE` with `Retry-After`. Always registered; not rate limited.
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
        '200 `{status: "ok"}` when the database (and a counter store of its own, such as Redis) answers; 503 `DATABASE_UNAVAILABLE` (with `Retry-After`) when either does not. Answers within the stores\' query and command timeouts.',
      response: {
        schema: z.object({ status: z.literal("ok") }).openapi("Health"),
        description: "The database and the counter store answered",
      },
    },
    async (c) => {
      try {
        await store.ping();
        // Counters in an engine of their own (Redis): a request needs both, so both must answer.
        await store.counters.ping?.();
      } catch (error) {
        // Whatever the store threw, the answer for a load balancer is the same: not ready.
        return errorResponse(isDatabaseUnavailable(error) ? error : databaseUnavailable(error));
      }
      return c.json({ status: "ok" as const });
    },
  );
}
