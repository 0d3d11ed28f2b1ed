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

/**
 * The web `Request` of a Node request: full URL (from `originalUrl` when a router stripped the mount), headers, and
 * the body as a stream read from `req` only as fast as the reader pulls it (nothing is read before, nothing is kept
 * beyond what the reader was handed). Latchkey's body guard refuses a declared `Content-Length` over its limit
 * without reading a byte, and cancels the stream as soon as the bytes counted pass it; the request's `signal`
 * aborts when the client goes away before the body is complete.
 */
export async function toWebRequest(req: NodeRequest, origin: string): Promise<Request> {
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers: webHeaders(req) };
  if (!BODYLESS.has(method) && !req.readableEnded) {
    const abandoned = new AbortController();
    init.body = bodyStream(req, abandoned);
    init.duplex = "half";
    init.signal = abandoned.signal;
  }
  return new Request(new URL(req.originalUrl ?? req.url ?? "/", origin), init);
}

/** Why the body stream failed: the connection closed before the body was complete. */
const clientGone = () => new Error("The client closed the connection before the request body was complete");

/**
 * `req`'s bytes as a web stream, pulled on demand: `req` stays paused between pulls, so at most one chunk is held
 * here and Node's own buffers (about 16 KiB) fill before the socket stops being read. Cancelling the stream pauses
 * `req` for good; a connection that closes before the end errors the stream and aborts `abandoned`.
 */
function bodyStream(req: NodeRequest, abandoned: AbortController): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on("data", (chunk: Uint8Array | string) => {
          if (finished) return;
          controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (finished) return;
          finished = true;
          controller.close();
        });
        const gone = () => {
          if (finished) return;
          finished = true;
          abandoned.abort(clientGone());
          controller.error(clientGone());
        };
        req.once("error", gone);
        req.once("close", gone);
      },
      pull() {
        req.resume();
      },
      cancel() {
        finished = true;
        req.pause();
      },
    },
    { highWaterMark: 1, size: () => 1 },
  );
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

/** After an answer sent before the body arrived in full: how long the connection stays open, unread. */
const LINGER_MS = 5000;

/**
 * The answer goes out before the body arrived in full (refused by its declared length, or cancelled past the
 * limit): nothing more of it is read. Node would read the rest after the answer to discard it (all 300 MiB of it);
 * instead `req` stays paused, so its socket stops being read once Node's small buffer is full, and the client, whose
 * upload stalls, reads the answer. Closing at once would reset the connection under an upload still being written,
 * and clients then report the reset instead of the answer (even for a client that sent `Connection: close`): the
 * connection is closed after `LINGER_MS`, or when the client closes it first.
 */
function stopReadingAfterAnswer(req: NodeRequest, res: ServerResponse): void {
  req.pause();
  // Marks the body as being consumed, which is what keeps Node from reading the rest to discard it.
  req.read(0);
  // Node closes a `Connection: close` request's socket as soon as the answer is written, which resets it under the
  // upload: the connection is closed here instead, after the client had time to read the answer.
  res.shouldKeepAlive = true;
  res.once("finish", () => {
    const socket = req.socket;
    if (req.readableEnded || socket.destroyed) return;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref?.();
    socket.once("close", () => clearTimeout(timer));
  });
}

/**
 * A Node request listener serving `auth.handler` (the standalone handler, mounted at `basePath`, "/auth" by
 * default). Mount it at that path in your framework, before any body parser (it reads the raw body itself, as it
 * arrives: a body over Latchkey's 64 KiB limit is refused by its `Content-Length` before any of it is read, or as
 * soon as the bytes counted pass the limit, and the rest is never buffered); the client IP is the socket's peer
 * address (`clientIp.fromSocket`). A client that goes away mid-upload is answered 400 (recorded, not logged as an
 * error), and nothing is written to its closed connection.
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
      const request = await toWebRequest(req, origin);
      const response = await auth.handler(request, { incoming: req });
      if (request.signal.aborted || req.socket?.destroyed) {
        await response.body?.cancel();
        return;
      }
      // A body that arrived in full but was not read (a route that takes none) is Node's to discard.
      if (!req.complete) stopReadingAfterAnswer(req, res);
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
