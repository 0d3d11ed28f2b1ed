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
