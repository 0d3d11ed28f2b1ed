import express, { type NextFunction, type Request, type Response } from "express";
import { apiKeys, AuthError, emailOtp, jwt, type SessionView, type UserView } from "@latchkey/core";
import { createAuth, errorResponse, type Auth, type GetClientIp } from "@latchkey/hono-adapter";
import { nodeSession, toNodeHandler, writeWebResponse } from "@latchkey/hono-adapter/node";
import { memoryStore } from "@latchkey/memory-store";

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireUser`. */
      user?: UserView;
      session?: SessionView;
    }
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
 * An Express guard for your routers: the request's user and session (cookie or Bearer) on `req.user` and
 * `req.session`, or 401 `INVALID_CREDENTIALS` in Latchkey's error shape. Latchkey's own refusals are answered as
 * they are: 403 `INVALID_ORIGIN`/`MISSING_ORIGIN` (a state-changing cookie request from an untrusted origin: CSRF),
 * 503 `DATABASE_UNAVAILABLE`.
 */
function requireUser(auth: Pick<Auth, "optionalUser" | "core">) {
  const sessionOf = nodeSession(auth);
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { user, session, setCookie } = await sessionOf(req);
      if (setCookie.length) res.append("set-cookie", setCookie);
      if (!user || !session) {
        res.status(401).json({ code: "INVALID_CREDENTIALS", message: "Sign in first" });
        return;
      }
      req.user = user;
      req.session = session;
      next();
    } catch (error) {
      if (error instanceof AuthError) await writeWebResponse(errorResponse(error), res);
      else next(error);
    }
  };
}

/** The app: auth at /auth (before any body parser), its own JSON routes next to it, a guarded router. */
export function createApp(auth: ReturnType<typeof createExampleAuth>) {
  const app = express();
  app.all("/auth", toNodeHandler(auth));
  app.all("/auth/{*path}", toNodeHandler(auth));
  app.use(express.json());

  app.get("/", (_req, res) => {
    res.json({ app: "express example", auth: "/auth" });
  });
  const account = express.Router();
  account.use(requireUser(auth));
  account.get("/me", (req, res) => {
    res.json({ email: req.user!.email, sessionId: req.session!.id });
  });
  app.use("/account", account);
  return app;
}
