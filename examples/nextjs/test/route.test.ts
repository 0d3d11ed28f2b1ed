import { beforeAll, describe, expect, it } from "vitest";
import { JOURNEYS, planSuite, runSuite, type FetchHandler } from "@latchkey/e2e";

const BASE_URL = "http://localhost:3000";
type Route = Record<"GET" | "POST" | "PATCH" | "DELETE" | "OPTIONS", (request: Request) => Promise<Response>>;
let route: Route;

// What Next does: pick the export named after the method (405 when there is none), with X-Forwarded-For from the proxy.
const next: FetchHandler = (request) => {
  const method = request.method as keyof Route;
  if (!(method in route)) return new Response(null, { status: 405 });
  const headers = new Headers(request.headers);
  headers.set("x-forwarded-for", request.headers.get("x-e2e-ip") ?? "203.0.113.50");
  return route[method](new Request(request, { headers }));
};

describe("Next.js route handler app/api/auth/[...all]/route.ts", () => {
  beforeAll(async () => {
    process.env.LATCHKEY_SECRET = "n".repeat(64);
    process.env.LATCHKEY_BASE_URL = BASE_URL;
    // The journeys run as if behind one proxy that overwrites X-Forwarded-For (what `next` above does).
    process.env.LATCHKEY_PROXY_HOPS = "1";
    route = (await import("../app/api/auth/[...all]/route.ts")) as Route;
  });

  it("exports GET, POST, PATCH, DELETE and OPTIONS", () => {
    expect(Object.keys(route).sort()).toEqual(["DELETE", "GET", "OPTIONS", "PATCH", "POST"]);
  });

  it("signs up under /api/auth and reads the session back by cookie", async () => {
    const up = await next(
      new Request(`${BASE_URL}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@next.example", password: "correct horse battery" }),
      }),
    );
    expect(up.status).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("latchkey.session=")).toBe(true);
    const session = await next(new Request(`${BASE_URL}/api/auth/get-session`, { headers: { cookie } }));
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe("ada@next.example");
  });

  it("under bare next start (no proxy configured) a client-set X-Forwarded-For is not trusted: rotating it does not get past the reset limit", async () => {
    const holder = globalThis as { latchkeyAuth?: unknown };
    const configured = holder.latchkeyAuth;
    const hops = process.env.LATCHKEY_PROXY_HOPS;
    delete process.env.LATCHKEY_PROXY_HOPS;
    delete holder.latchkeyAuth;
    try {
      // What `next start` passes on: the client's own header, untouched (Next only fills it in when absent).
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) {
        const res = await route.POST(
          new Request(`${BASE_URL}/api/auth/request-password-reset`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i}` },
            // A new address each time: the email send limits (one per minute per address) stay out of the count.
            body: JSON.stringify({ email: `victim${i}@next.example` }),
          }),
        );
        statuses.push(res.status);
      }
      // The reset rule allows 3 a minute per address; the rotating header does not make 14 addresses.
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(11);
    } finally {
      holder.latchkeyAuth = configured;
      process.env.LATCHKEY_PROXY_HOPS = hops;
    }
  });

  it("trusts X-Forwarded-For on Vercel or behind LATCHKEY_PROXY_HOPS proxies, and refuses a malformed hop count", async () => {
    const holder = globalThis as { latchkeyAuth?: unknown };
    const configured = holder.latchkeyAuth;
    const { getAuth } = await import("../lib/auth.ts");
    try {
      process.env.LATCHKEY_PROXY_HOPS = "two";
      delete holder.latchkeyAuth;
      expect(() => getAuth()).toThrow(/LATCHKEY_PROXY_HOPS/);
      process.env.LATCHKEY_PROXY_HOPS = "2";
      delete holder.latchkeyAuth;
      // Two proxies: the address the outer one saw is second from the right.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await route.POST(
          new Request(`${BASE_URL}/api/auth/request-password-reset`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `spoofed-${i}, 192.0.2.${i}, 10.0.0.1` },
            body: JSON.stringify({ email: `hops${i}@next.example` }),
          }),
        );
        statuses.push(res.status);
      }
      // Four different client addresses: none is limited.
      expect(statuses).toEqual([200, 200, 200, 200]);
    } finally {
      holder.latchkeyAuth = configured;
      process.env.LATCHKEY_PROXY_HOPS = "1";
    }
  });

  it("in production without a configured proxy (bare next start) the server refuses to start, saying what to set", async () => {
    const holder = globalThis as { latchkeyAuth?: unknown };
    const configured = holder.latchkeyAuth;
    const env = process.env as Record<string, string | undefined>;
    const { NODE_ENV, NEXT_RUNTIME } = env;
    const { register } = await import("../instrumentation.ts");
    try {
      delete env.LATCHKEY_PROXY_HOPS;
      delete env.VERCEL;
      env.NODE_ENV = "production";
      env.NEXT_RUNTIME = "nodejs";
      delete holder.latchkeyAuth;
      // What `next start` runs before serving: the server does not come up.
      await expect(register()).rejects.toThrow(/bare `next start`.*LATCHKEY_PROXY_HOPS/);
      expect(holder.latchkeyAuth).toBeUndefined();
      // With the proxy said, it starts.
      env.LATCHKEY_PROXY_HOPS = "1";
      await register();
      expect(holder.latchkeyAuth).toBeDefined();
    } finally {
      env.NODE_ENV = NODE_ENV;
      env.NEXT_RUNTIME = NEXT_RUNTIME;
      holder.latchkeyAuth = configured;
      env.LATCHKEY_PROXY_HOPS = "1";
    }
  });

  it("keeps one auth across module re-evaluation (next dev reloads)", async () => {
    const { getAuth } = await import("../lib/auth.ts");
    expect((globalThis as { latchkeyAuth?: unknown }).latchkeyAuth).toBe(getAuth());
  });

  it("passes every shared e2e journey through the route exports, the OTP one included (none skipped)", async () => {
    // The app's own auth (one per process, lib/auth.ts): codes are read from its OtpGenerated events, as a custom
    // email delivery would see them.
    const { getAuth } = await import("../lib/auth.ts");
    const codes = new Map<string, string>();
    const off = getAuth().events.on("OtpGenerated", (e) => void codes.set(e.identifier, e.plain));
    const lines: string[] = [];
    try {
      const result = await runSuite(
        await planSuite(
          { handler: next, baseUrl: BASE_URL, basePath: "/api/auth", latestOtp: (email) => codes.get(email) },
          JOURNEYS,
        ),
        (line) => lines.push(line),
      );
      expect(result.failed, lines.join("\n")).toEqual([]);
      expect(result.skipped).toEqual([]);
      expect(result.passed).toEqual(JOURNEYS.map((j) => j.name));
    } finally {
      off();
    }
  });
});
