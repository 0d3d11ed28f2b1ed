// The Cloudflare Workers example bundled with esbuild and run in workerd via Miniflare on D1: the bundle budget, the
// HTTP basics and the shared e2e journeys on one instance, and a deploy without LATCHKEY_BASE_URL. Setup:
// worker-fixture.ts.
import { describe, expect, it } from "vitest";
import {
  JOURNEYS,
  apiKeysJourney,
  deleteAccountJourney,
  jwtJourney,
  planSuite,
  runSuite,
  twoFactorJourney,
} from "@latchkey/e2e";
import { budgetProblems } from "../../../bench/bundle/measure.ts";
import { BASE_URL, bundle, outbox, setUpWorkers, unconfigured, viaEdge } from "./worker-fixture.ts";

setUpWorkers({ unconfigured: true });

describe("Cloudflare Workers example (bundled with esbuild, run in workerd via Miniflare, on D1)", () => {
  it("stays in the bundle budget: no node: imports, native argon2, drivers or 4 MB explorer script; gzip under budget", () => {
    expect(budgetProblems(bundle)).toEqual([]);
    expect(bundle.byPackage.map((p) => p.name)).not.toContain("@scalar/api-reference");
    // The store is in the bundle: drizzle's D1 driver and the SQLite schema, no libSQL.
    expect(bundle.byPackage.map((p) => p.name)).toContain("drizzle-orm");
    expect(bundle.bytes).toBeLessThan(1_000_000);
  });

  it("the budget check catches a node: import and a native addon (the check itself works)", () => {
    const tainted = { ...bundle, nodeImports: ["node:fs"], forbiddenInputs: ["node_modules/@node-rs/argon2/index.js"] };
    expect(budgetProblems(tainted)).toHaveLength(2);
  });

  it("answers GET /auth/get-session with null for an anonymous request", async () => {
    const res = await viaEdge(new Request(`${BASE_URL}/auth/get-session`));
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
  });

  it("signs up and reads the session back by cookie", async () => {
    const up = await viaEdge(
      new Request(`${BASE_URL}/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@workers.example", password: "correct horse battery" }),
      }),
    );
    expect(up.status).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("__Host-latchkey.session=")).toBe(true);
    const session = await viaEdge(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }));
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe("ada@workers.example");
  });

  it("rate-limits by cf-connecting-ip (one client is limited, another is not)", async () => {
    // The per-IP rule counts before validation, so invalid bodies (cheap 400s, no password hashing) use it up.
    const attempt = (ip: string) =>
      viaEdge(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "not-an-email", password: "no email" }),
        }),
        ip,
      );
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt("198.51.100.77")).status);
    expect(statuses).toEqual(Array(10).fill(400));
    const limited = await attempt("198.51.100.77");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { code: string }).code).toBe("RATE_LIMITED");
    expect((await attempt("198.51.100.78")).status).toBe(400);
  });

  it("explains that the explorer script is not bundled on Workers", async () => {
    const res = await viaEdge(new Request(`${BASE_URL}/auth/reference/scalar.js`));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/reference\.scriptUrl/);
  });

  it("passes the shared e2e journeys over HTTP (those that need no OTP capture)", async () => {
    const lines: string[] = [];
    const cases = await planSuite(
      { handler: (request) => viaEdge(request), baseUrl: BASE_URL, basePath: "/auth" },
      JOURNEYS,
    );
    const result = await runSuite(cases, (line) => lines.push(line));
    expect(result.failed, lines.join("\n")).toEqual([]);
    expect(result.passed.length).toBeGreaterThanOrEqual(6);
    // The worker installs apiKeys() and jwt(): keys verify, and tokens signed in workerd verify with jose in Node.
    expect(result.passed).toEqual(
      expect.arrayContaining([apiKeysJourney.name, jwtJourney.name, deleteAccountJourney.name, twoFactorJourney.name]),
    );
  });
});

describe("a worker without LATCHKEY_BASE_URL", () => {
  it("serves nothing (500, configuration named in the log only) instead of taking links and origins from the first request's Host", async () => {
    const sent = outbox.length;
    for (const host of ["https://evil.example", "https://workers.example"]) {
      const res = await unconfigured.fetch(
        new Request(`${host}/auth/request-password-reset`, {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": "203.0.113.77" },
          body: JSON.stringify({ email: "nobase@example.com" }),
        }),
      );
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ code: "INTERNAL_ERROR", message: "The auth service is not configured" });
    }
    expect(outbox.slice(sent)).toEqual([]);
  });
});
