import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../test/test-auth.ts";
import { clientIp } from "./client-ip.ts";

// Bun's `server.requestIP(request)` answers only for the Request object Bun created. The body guard and the
// security middleware replace `c.req.raw` with copies, so `fromSocket` must ask about the original.

const BASE = "http://localhost:3000/auth";

function bunLikeServer(addresses: Map<Request, string>) {
  const asked: Request[] = [];
  return {
    asked,
    env: {
      server: {
        requestIP: (request: Request) => {
          asked.push(request);
          const address = addresses.get(request);
          return address ? { address } : null;
        },
      },
    },
  };
}

describe("clientIp.fromSocket behind the body guard's copies (Bun)", () => {
  it("asks the runtime about the Request it created, so a JSON POST is counted under the client's address", async () => {
    const t = createTestAuth({ getClientIp: clientIp.fromSocket });
    const addresses = new Map<Request, string>();
    const server = bunLikeServer(addresses);
    let n = 0;
    const signIn = (address: string) => {
      const request = new Request(`${BASE}/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `nobody${n++}@example.com`, password: "wrong password" }),
      });
      addresses.set(request, address);
      return { request, response: t.auth.handler(request, server.env) };
    };

    const first = signIn("203.0.113.9");
    expect((await first.response).status).toBe(401);
    // Every question went to the object Bun handed over, never to a copy (a copy would get null).
    expect(server.asked.length).toBeGreaterThan(0);
    expect(server.asked.every((r) => r === first.request)).toBe(true);

    // The per-IP sign-in rule (10 a minute) counts this address: the 11th is refused, another address is not.
    for (let i = 2; i <= 10; i++) expect((await signIn("203.0.113.9").response).status).toBe(401);
    expect((await signIn("203.0.113.9").response).status).toBe(429);
    expect((await signIn("198.51.100.7").response).status).toBe(401);
  });
});

// Issue 50 item 2: entries are parsed as addresses, so a port never makes a new bucket and junk is unknown.
describe("forwarding headers are parsed as addresses", () => {
  const ipOf = (preset: (request: Request, c: never) => string | null, headers: Record<string, string>) =>
    preset(new Request(BASE, { headers }), undefined as never);

  it("X-Forwarded-For: IPv4 with a port, [IPv6]:port, bare IPv6; anything else is unknown", () => {
    const xff = clientIp.fromForwardedFor(1);
    expect(ipOf(xff, { "x-forwarded-for": "198.51.100.1, 203.0.113.6:40001" })).toBe("203.0.113.6");
    expect(ipOf(xff, { "x-forwarded-for": "[2001:DB8::1]:443" })).toBe("2001:db8:0:0:0:0:0:1");
    expect(ipOf(xff, { "x-forwarded-for": "2001:db8::1" })).toBe("2001:db8:0:0:0:0:0:1");
    expect(ipOf(xff, { "x-forwarded-for": "::ffff:203.0.113.6" })).toBe("203.0.113.6");
    for (const junk of ["unknown", "203.0.113.256", "203.0.113.6:99999", "evil:1:2", "a.b.c.d", "[::1", "1.2.3"])
      expect(ipOf(xff, { "x-forwarded-for": junk })).toBeNull();
    expect(ipOf(clientIp.fromForwardedFor(2), { "x-forwarded-for": "203.0.113.7:1, 10.0.0.1" })).toBe("203.0.113.7");
  });

  it("RFC 7239 Forwarded: for= quoted or not, with ports; unknown and obfuscated identifiers are unknown", () => {
    const fwd = clientIp.fromForwarded(1);
    expect(ipOf(fwd, { forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43" })).toBe("192.0.2.60");
    expect(ipOf(fwd, { forwarded: 'for="[2001:db8:cafe::17]:4711"' })).toBe("2001:db8:cafe:0:0:0:0:17");
    expect(ipOf(fwd, { forwarded: 'For="192.0.2.61:8080"' })).toBe("192.0.2.61");
    expect(ipOf(fwd, { forwarded: "for=unknown" })).toBeNull();
    expect(ipOf(fwd, { forwarded: "for=_hidden" })).toBeNull();
    expect(ipOf(fwd, { forwarded: "proto=https" })).toBeNull();
    expect(ipOf(clientIp.fromForwarded(2), { forwarded: "for=192.0.2.1, for=198.51.100.17" })).toBe("192.0.2.1");
  });

  it("one client behind a proxy that writes IP:port is one bucket whatever its connection's port", async () => {
    const t = createTestAuth({ getClientIp: clientIp.fromForwardedFor(1) });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: `nobody${i}@example.com`, password: "wrong password" },
        headers: { "x-forwarded-for": `203.0.113.6:${40_001 + i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });
});
