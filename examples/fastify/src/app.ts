import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { apiKeys, AuthError, emailOtp, jwt, type SessionView, type UserView } from "@latchkey/core";
import { createAuth, errorResponse, type Auth, type GetClientIp } from "@latchkey/hono-adapter";
import { nodeSession, toNodeHandler } from "@latchkey/hono-adapter/node";
import { memoryStore } from "@latchkey/memory-store";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireUser`. */
    user?: UserView;
    session?: SessionView;
  }
}

/** The example's auth: the standalone handler under /auth, memory store (demo only: gone on restart). */
export function createExampleAuth(options: {
  secret: string;
  baseUrl: string;
  environment: "production" | "development";
  getClientIp?: GetClientIp;
}) {
  // Development is the caller's explicit choice (NODE_ENV=development), never inferred from the URL; only there may
  // an http:// localhost get cookies without Secure.
  const plainHttp = options.environment === "development" && options.baseUrl.startsWith("http://");
  return createAuth({
    secret: options.secret,
    baseUrl: options.baseUrl,
    basePath: "/auth",
    database: memoryStore(),
    plugins: [emailOtp(), apiKeys(), jwt()],
    environment: options.environment,
    ...(options.getClientIp ? { getClientIp: options.getClientIp } : {}),
    ...(plainHttp ? { cookies: { secure: false } } : {}),
  });
}

/**
 * A Fastify `preHandler` guard: `request.user` and `request.session`, or 401 in Latchkey's error shape. Latchkey's
 * own refusals are answered as they are: 403 `INVALID_ORIGIN`/`MISSING_ORIGIN` (a state-changing cookie request
 * from an untrusted origin: CSRF), 503 `DATABASE_UNAVAILABLE`.
 */
function requireUser(auth: Pick<Auth, "optionalUser" | "core">) {
  const sessionOf = nodeSession(auth);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let found: Awaited<ReturnType<typeof sessionOf>>;
    try {
      found = await sessionOf(request.raw);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      const answer = errorResponse(error);
      return reply
        .code(answer.status)
        .headers(Object.fromEntries(answer.headers))
        .send(await answer.text());
    }
    const { user, session, setCookie } = found;
    if (setCookie.length) reply.header("set-cookie", setCookie);
    if (!user || !session) return reply.code(401).send({ code: "INVALID_CREDENTIALS", message: "Sign in first" });
    request.user = user;
    request.session = session;
  };
}

/** The app: auth at /auth, its own JSON routes next to it, a guarded plugin of routes. */
export function createApp(
  auth: ReturnType<typeof createExampleAuth>,
  options: Pick<FastifyServerOptions, "serverFactory"> = {},
): FastifyInstance {
  const app = Fastify(options);
  const handler = toNodeHandler(auth);
  // Latchkey reads the raw body itself: in this plugin no parser touches it, and the reply is Latchkey's.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      await handler(request.raw, reply.raw);
    };
    scope.all("/auth", serve);
    scope.all("/auth/*", serve);
  });

  app.get("/", async () => ({ app: "fastify example", auth: "/auth" }));
  void app.register(async (account) => {
    account.addHook("preHandler", requireUser(auth));
    account.get("/account/me", async (request) => ({ email: request.user!.email, sessionId: request.session!.id }));
  });
  return app;
}
