import type { Context } from "hono";
import { forwardedAddress } from "@latchkey/core/internal";

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
export const fromCfConnectingIp: GetClientIp = (request) => {
  const value = request.headers.get("cf-connecting-ip");
  return value === null ? null : forwardedAddress(value);
};

/** The entry `hops` from the right of a comma-separated header, parsed as an address (null when it is none). */
function fromRight(list: string[], hops: number, parse: (entry: string) => string | null): string | null {
  return list.length >= hops ? parse(list[list.length - hops]!) : null;
}

function checkHops(hops: number, name: string): void {
  if (!Number.isInteger(hops) || hops < 1) throw new Error(`${name}(hops): hops must be a positive integer`);
}

/**
 * `X-Forwarded-For` behind exactly `hops` trusted proxies: the address `hops` entries from the right (the one your
 * outermost proxy saw). Each entry is parsed as an address: `203.0.113.6`, `203.0.113.6:40001` (Azure Application
 * Gateway writes the port), `2001:db8::1`, `[2001:db8::1]:443`; the port is dropped, so one client is one bucket
 * whatever its connection. An entry that is not an address is an unknown client. Never use it without proxies that
 * overwrite the header.
 */
export function fromForwardedFor(hops = 1): GetClientIp {
  checkHops(hops, "fromForwardedFor");
  return (request) => {
    const list =
      request.headers
        .get("x-forwarded-for")
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    return fromRight(list, hops, forwardedAddress);
  };
}

/**
 * RFC 7239 `Forwarded` behind exactly `hops` trusted proxies: the `for=` of the element `hops` from the right
 * (`for=192.0.2.60;proto=https`, `for="[2001:db8::1]:4711"`). `for=unknown`, an obfuscated `for=_hidden`, an element
 * without `for=` and anything that is not an address are an unknown client.
 */
export function fromForwarded(hops = 1): GetClientIp {
  checkHops(hops, "fromForwarded");
  return (request) => {
    const elements =
      request.headers
        .get("forwarded")
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    return fromRight(elements, hops, (element) => {
      for (const pair of element.split(";")) {
        const eq = pair.indexOf("=");
        if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === "for") return forwardedAddress(pair.slice(eq + 1));
      }
      return null;
    });
  };
}

/** The presets, for `getClientIp`. */
export const clientIp = { fromSocket, fromCfConnectingIp, fromForwardedFor, fromForwarded };
