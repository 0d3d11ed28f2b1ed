import type { Logger } from "@latchkey/core";
import type { GetClientIp } from "./client-ip.ts";

/** How many requests in a row from one private address make the warning: a real audience has more than one. */
export const PROXY_HINT_REQUESTS = 50;

/** Loopback, RFC 1918, shared address space (RFC 6598), link-local and unique-local IPv6; IPv4-mapped forms too. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^::ffff:/, "");
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(ip);
  if (v4) {
    const a = Number(v4[1]);
    const b = Number(v4[2]);
    return (
      a === 10 ||
      a === 127 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254)
    );
  }
  return ip === "::1" || /^f[cd][0-9a-f]{2}:/.test(ip) || /^fe[89ab][0-9a-f]:/.test(ip);
}

/**
 * The socket address, watched: when the first `PROXY_HINT_REQUESTS` requests all come from one private address,
 * Latchkey is almost certainly behind a load balancer or reverse proxy that it takes for the client, so every user
 * shares one rate-limit budget. Says so once through `logger`, naming what to set. Watches only until a second
 * address appears or the warning is given: after that it is the bare preset.
 */
export function watchForProxy(getClientIp: GetClientIp, logger: Logger): GetClientIp {
  let first: string | null = null;
  let seen = 0;
  let watching = true;
  // A request may ask for its address more than once (rate limits, audit): each counts once.
  const counted = new WeakSet<Request>();
  return (request, c) => {
    const address = getClientIp(request, c);
    if (!watching || address === null || counted.has(request)) return address;
    counted.add(request);
    if (first === null) first = address;
    if (address !== first || !isPrivateAddress(address)) {
      watching = false;
      return address;
    }
    if (++seen >= PROXY_HINT_REQUESTS) {
      watching = false;
      logger.warn(
        { component: "client-ip", requests: seen },
        `the last ${seen} requests all came from one private address: Latchkey is probably behind a load balancer or reverse proxy and takes it for the client, so every user shares one rate-limit budget. Set getClientIp: clientIp.fromForwardedFor(hops) with the number of proxies that overwrite X-Forwarded-For (latchkey serve: --proxy-hops <n>; the examples: LATCHKEY_PROXY_HOPS)`,
      );
    }
    return address;
  };
}
