import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOURNEYS, apiKeysJourney, deleteAccountJourney, jwtJourney, planSuite, runSuite } from "@latchkey/e2e";
import { bundleWorker, startWorker, type RunningWorker, type WorkerBundle } from "@latchkey/e2e/workerd";
import { budgetProblems } from "../../../bench/bundle/measure.ts";

const BASE_URL = "https://workers.example";
let bundle: WorkerBundle;
let worker: RunningWorker;

// Cloudflare's edge sets cf-connecting-ip; the tests play the edge.
const viaEdge = (request: Request, ip = "203.0.113.9") => {
  const headers = new Headers(request.headers);
  headers.set("cf-connecting-ip", request.headers.get("x-e2e-ip") ?? ip);
  return worker.fetch(new Request(request, { headers }));
};

describe("Cloudflare Workers example (bundled with esbuild, run in workerd via Miniflare)", () => {
  beforeAll(async () => {
    bundle = await bundleWorker(fileURLToPath(new URL("./worker.ts", import.meta.url)), { minify: true });
    worker = await startWorker(bundle.code, { LATCHKEY_SECRET: "w".repeat(64), LATCHKEY_BASE_URL: BASE_URL });
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  it("stays in the bundle budget: no node: imports, native argon2, drivers or 4 MB explorer script; gzip under budget", () => {
    expect(budgetProblems(bundle)).toEqual([]);
    expect(bundle.byPackage.map((p) => p.name)).not.toContain("@scalar/api-reference");
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
    const up = await viaEdge(new Request(`${BASE_URL}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@workers.example", password: "correct horse battery" }),
    }));
    expect(up.status).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("__Secure-latchkey.session=")).toBe(true);
    const session = await viaEdge(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }));
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe("ada@workers.example");
  });

  it("rate-limits by cf-connecting-ip (one client is limited, another is not)", async () => {
    // The per-IP rule counts before validation, so invalid bodies (cheap 400s, no password hashing) use it up.
    const attempt = (ip: string) => viaEdge(new Request(`${BASE_URL}/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "no email" }),
    }), ip);
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
    const cases = await planSuite({ handler: (request) => viaEdge(request), baseUrl: BASE_URL, basePath: "/auth" }, JOURNEYS);
    const result = await runSuite(cases, (line) => lines.push(line));
    expect(result.failed, lines.join("\n")).toEqual([]);
    expect(result.passed.length).toBeGreaterThanOrEqual(6);
    // The worker installs apiKeys() and jwt(): keys verify, and tokens signed in workerd verify with jose in Node.
    expect(result.passed).toEqual(expect.arrayContaining([apiKeysJourney.name, jwtJourney.name, deleteAccountJourney.name]));
  });
});
