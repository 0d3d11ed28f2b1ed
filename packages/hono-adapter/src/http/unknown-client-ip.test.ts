import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestAuth } from "../../test/test-auth.ts";

// Review fix 7: when `getClientIp` finds no address (the default `fromSocket` under `auth.handler(req)` without
// the runtime's env, Workers without the Cloudflare preset), every client fell into one per-IP bucket: one client's
// traffic, or the 11th sign-in of unrelated users, answered 429 to everyone. Production now refuses such requests
// until `rateLimit.ipless` says what to do; development warns once.

const noIp = () => null;
const signIn = (t: ReturnType<typeof createTestAuth>, n: number) =>
  t.request("POST", "/sign-in/email", { body: { email: `user${n}@example.com`, password: "wrong password" } });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("requests without a client address", () => {
  it("production without rateLimit.ipless refuses them instead of pooling every client into one budget", async () => {
    const t = createTestAuth({ getClientIp: noIp });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await signIn(t, 1);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("INTERNAL_ERROR");
    expect(errors.mock.calls.flat().join(" ")).toMatch(/getClientIp found no client address.*rateLimit\.ipless/);
    // Nothing was counted: no budget of anyone was spent.
    expect(await t.counters.peek("rl:/sign-in/email:unknown", t.clock.now())).toBeNull();
  });

  it("unrelated clients without an address are not 429 after the 10th sign-in when ipless is 'skip'", async () => {
    const t = createTestAuth({ getClientIp: noIp, rateLimit: { ipless: "skip" } });
    for (let n = 0; n < 15; n++) expect((await signIn(t, n)).status).toBe(401);
  });

  it("ipless 'shared' is the explicit choice of one shared budget", async () => {
    const t = createTestAuth({ getClientIp: noIp, rateLimit: { ipless: "shared" } });
    const statuses: number[] = [];
    for (let n = 0; n < 12; n++) statuses.push((await signIn(t, n)).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it("development warns once and shares one budget", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const t = createTestAuth({ getClientIp: noIp, environment: "development" });
    expect((await signIn(t, 1)).status).toBe(401);
    expect((await signIn(t, 2)).status).toBe(401);
    const warnings = warn.mock.calls.filter((call) => String(call[0]).includes("getClientIp found no client address"));
    expect(warnings).toHaveLength(1);
  });

  it("a request with an address is unaffected in production", async () => {
    const t = createTestAuth();
    expect((await signIn(t, 1)).status).toBe(401);
  });
});
