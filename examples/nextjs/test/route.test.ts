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
