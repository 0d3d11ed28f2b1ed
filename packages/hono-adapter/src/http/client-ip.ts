import type { Context } from "hono";

/** Finds the client address of a request for rate limiting; null when unknown. */
export type GetClientIp = (request: Request, c: Context) => string | null;

/**
 * The request a runtime handed over, for each copy the middleware made of it (the body guard replaces `c.req.raw`).
 * Bun's `server.requestIP(request)` knows only the object it created, so the address is asked of that one.
 */
const originals = new WeakMap<Request, Request>();

/** Records that `copy` stands for `original` (and for whatever `original` stood for); returns `copy`. */
export function copiedFrom(copy: Request, original: Request): Request {
  originals.set(copy, originals.get(original) ?? original);
  return copy;
}

interface SocketEnv {
  /** The peer address a framework read from its socket (SvelteKit `event.getClientAddress()`, Astro `clientAddress`). */
  clientAddress?: string;
  incoming?: { socket?: { remoteAddress?: string } };
  server?: { requestIP?: (request: Request) => { address: string } | null };
  remoteAddr?: { hostname?: string };
}

/**
 * The peer address of the connection: Node (`@hono/node-server`), Bun (`fetch(req, server)` passed as env
 * `{ server }`), Deno (`Deno.serve` info passed as env), and frameworks that read it for you (env
 * `{ clientAddress }`: SvelteKit's `event.getClientAddress()`, Astro's `clientAddress`). The safe default: headers
 * are not trusted.
 */
export const fromSocket: GetClientIp = (request, c) => {
  const env = (c.env ?? {}) as SocketEnv;
  return (
    (typeof env.clientAddress === "string" && env.clientAddress !== "" ? env.clientAddress : undefined) ??
    env.incoming?.socket?.remoteAddress ??
    env.server?.requestIP?.(originals.get(request) ?? request)?.address ??
    env.remoteAddr?.hostname ??
    null
  );
};

/** Cloudflare's `cf-connecting-ip`: use only behind Cloudflare (Workers), where clients cannot set it. */
export const fromCfConnectingIp: GetClientIp = (request) => request.headers.get("cf-connecting-ip");

/**
 * `X-Forwarded-For` behind exactly `hops` trusted proxies: the address `hops` entries from the right
 * (the one your outermost proxy saw). Never use it without proxies that overwrite the header.
 */
export function fromForwardedFor(hops = 1): GetClientIp {
  if (!Number.isInteger(hops) || hops < 1) throw new Error("fromForwardedFor(hops): hops must be a positive integer");
  return (request) => {
    const list =
      request.headers
        .get("x-forwarded-for")
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    return list.length >= hops ? list[list.length - hops]! : null;
  };
}

/** The presets, for `getClientIp`. */
export const clientIp = { fromSocket, fromCfConnectingIp, fromForwardedFor };
