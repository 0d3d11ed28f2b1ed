// `@latchkey/hono-adapter/node`: Latchkey inside a Node framework (Express, Fastify, a plain `http` server).
// Type-only Node imports: nothing here loads a Node module, so the entry also type-checks for other runtimes.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SessionView, UserView } from "@latchkey/core";
import type { Auth } from "../create-auth.ts";
import { sessionLookup } from "../http/request-session.ts";

/** A Node request; Express and Fastify add `originalUrl` (the URL before a router stripped its mount path). */
export type NodeRequest = IncomingMessage & { originalUrl?: string };

/** What `nodeSession` finds: the user and session, or nulls when the request is not signed in. */
export interface NodeSession {
  user: UserView | null;
  session: SessionView | null;
}

const BODYLESS = new Set(["GET", "HEAD"]);

/** The web `Request` of a Node request: full URL (from `originalUrl` when a router stripped the mount), headers, body. */
export async function toWebRequest(req: NodeRequest, origin: string): Promise<Request> {
  const headers = webHeaders(req);
  const method = req.method ?? "GET";
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (!BODYLESS.has(method)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req as AsyncIterable<Uint8Array | string>)
      chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
    const size = chunks.reduce((n, c) => n + c.byteLength, 0);
    body = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      body.set(c, at);
      at += c.byteLength;
    }
  }
  return new Request(new URL(req.originalUrl ?? req.url ?? "/", origin), {
    method,
    headers,
    ...(body && body.byteLength > 0 ? { body } : {}),
  });
}

function webHeaders(req: Pick<IncomingMessage, "headers">): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Writes a web `Response` to a Node response: status, every header (each `set-cookie` on its own), body. */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/**
 * A Node request listener serving `auth.handler` (the standalone handler, mounted at `basePath`, "/auth" by
 * default). Mount it at that path in your framework, before any body parser (it reads the raw body itself); the
 * client IP is the socket's peer address (`clientIp.fromSocket`).
 *
 * @example
 * import express from "express";
 * import { toNodeHandler } from "@latchkey/hono-adapter/node";
 * const app = express();
 * app.all("/auth/{*path}", toNodeHandler(auth));
 */
export function toNodeHandler(
  auth: Pick<Auth, "handler" | "core">,
): (req: NodeRequest, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void> {
  const origin = auth.core.config.baseOrigin;
  return async (req, res, next) => {
    try {
      const response = await auth.handler(await toWebRequest(req, origin), { incoming: req });
      await writeWebResponse(response, res);
    } catch (error) {
      if (next) next(error);
      else throw error;
    }
  };
}

/**
 * The session of a Node request (cookie or Bearer), for guards in a Node framework's routers. Runs Latchkey's own
 * `optionalUser` on the request, so it reads exactly what `auth.requireUser` reads, after the CSRF check of
 * `auth.middleware`: a state-changing request (POST, PUT, PATCH, DELETE) carrying the session cookie from an
 * untrusted origin rejects with a 403 `AuthError` (`INVALID_ORIGIN`, `MISSING_ORIGIN`), and a database outage with
 * `DATABASE_UNAVAILABLE` (503): answer them with `writeWebResponse(errorResponse(error), res)`. `setCookie` carries
 * the refreshed session cookie when the session slid forward: send it on your answer.
 *
 * @example
 * const { user, setCookie } = await nodeSession(auth)(req);
 * if (!user) return res.status(401).json({ code: "INVALID_CREDENTIALS", message: "Sign in first" });
 */
export function nodeSession(
  auth: Pick<Auth, "optionalUser" | "core">,
): (req: NodeRequest) => Promise<NodeSession & { setCookie: string[] }> {
  const origin = auth.core.config.baseOrigin;
  const lookup = sessionLookup(auth);
  return (req) =>
    lookup(req.method ?? "GET", new URL(req.originalUrl ?? req.url ?? "/", origin).href, webHeaders(req), {
      incoming: req,
    });
}
