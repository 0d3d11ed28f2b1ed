import { readFileSync } from "node:fs";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { apiKeys, auditLog, emailOtp, jwt, magicLink, type ValidatedSession } from "@latchkey/core";
import type { AuthEnv } from "../env.ts";
import { errorResponse } from "../http/errors.ts";
import { bearer, createTestAuth, type TestAuth } from "../../test/test-auth.ts";
import { defineRoute, ruleText, type AuthApp, type RouteSpec } from "./define.ts";
import { SuccessSchema } from "./schemas.ts";

/** A throwaway app holding one route defined through `defineRoute`, wired to a real auth's tools. */
function throwaway<A extends boolean = false>(
  t: TestAuth,
  spec: Partial<RouteSpec<z.ZodObject<{ n: z.ZodNumber }>, undefined, A>>,
  handler: (session: A extends true ? ValidatedSession : undefined) => void = () => {},
) {
  const app: AuthApp = new OpenAPIHono<AuthEnv>();
  app.onError((error) => errorResponse(error));
  defineRoute(
    app,
    t.auth.tools,
    {
      method: "post",
      path: "/throwaway",
      operationId: "throwaway",
      tag: "Test",
      summary: "A route for this test",
      description: "Does nothing.",
      body: z.object({ n: z.number() }),
      response: { schema: SuccessSchema, description: "Done" },
      ...spec,
    },
    async (c, { session }) => {
      handler(session);
      return c.json({ success: true as const });
    },
  );
  const call = (body: unknown = { n: 1 }, headers: Record<string, string> = {}) =>
    app.request("/throwaway", {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-ip": "203.0.113.50", ...headers },
      body: JSON.stringify(body),
    });
  const description = () => {
    const doc = app.getOpenAPIDocument({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    return doc.paths?.["/throwaway"]?.post?.description;
  };
  return { call, description };
}

describe("authenticated: the route spec installs the session requirement", () => {
  it("answers 401 INVALID_CREDENTIALS before a handler that checks nothing, and hands it the session", async () => {
    const t = createTestAuth();
    const seen: string[] = [];
    const route = throwaway(t, { authenticated: true }, (session) => {
      // Typed non-null on an authenticated route: no check needed in the handler.
      seen.push(session.user.id);
    });
    const anonymous = await route.call();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ code: "INVALID_CREDENTIALS", message: "Sign in first" });
    const forged = await route.call({ n: 1 }, bearer("not-a-session-token"));
    expect(forged.status).toBe(401);
    expect(seen).toEqual([]);

    const { token, userId } = await t.signUp("ada@example.com");
    const signedIn = await route.call({ n: 1 }, bearer(token));
    expect(signedIn.status).toBe(200);
    expect(seen).toEqual([userId]);
  });

  it("a route without `authenticated` runs its handler for anyone, with no session", async () => {
    const t = createTestAuth();
    const seen: unknown[] = [];
    const route = throwaway(t, {}, (session) => seen.push(session));
    expect((await route.call()).status).toBe(200);
    expect(seen).toEqual([undefined]);
  });

  it("order: validation (400), then the rate limit (429), then the session (401)", async () => {
    const t = createTestAuth();
    const route = throwaway(t, { authenticated: true, rateLimit: { window: "1m", max: 2 } });
    // A malformed request is refused first and spends no budget.
    for (let i = 0; i < 3; i++) expect((await route.call({ n: "x" })).status).toBe(400);
    expect((await route.call()).status).toBe(401);
    expect((await route.call()).status).toBe(401);
    // Requests without a session spend the budget like any other.
    const limited = await route.call();
    expect(limited.status).toBe(429);
    expect((await limited.json()).code).toBe("RATE_LIMITED");
  });
});

describe("rateLimit: the route spec declares its default rule", () => {
  it("the limiter enforces the declared rule, and the description states it", async () => {
    const t = createTestAuth();
    const route = throwaway(t, { rateLimit: { window: "1m", max: 2 } });
    expect((await route.call()).status).toBe(200);
    expect((await route.call()).status).toBe(200);
    expect((await route.call()).status).toBe(429);
    expect(route.description()).toBe(
      'Does nothing.\n\nRate limit: 2 requests per minute per IP (`rateLimit.rules["/throwaway"]`).',
    );
  });

  it("rateLimit.rules overrides the declared rule (limiter and description), and false turns it off", async () => {
    const stricter = throwaway(createTestAuth({ rateLimit: { rules: { "/throwaway": { window: "5m", max: 1 } } } }), {
      rateLimit: { window: "1m", max: 2 },
    });
    expect((await stricter.call()).status).toBe(200);
    expect((await stricter.call()).status).toBe(429);
    expect(stricter.description()).toContain("Rate limit: 1 request per 5 minutes per IP");

    const off = throwaway(createTestAuth({ rateLimit: { rules: { "/throwaway": false } } }), {
      rateLimit: { window: "1m", max: 1 },
      globalRateLimit: false,
    });
    for (let i = 0; i < 3; i++) expect((await off.call()).status).toBe(200);
    expect(off.description()).toBe("Does nothing.");
  });

  it("with rate limiting off, nothing is counted and the description says nothing about limits", async () => {
    const route = throwaway(createTestAuth({ rateLimit: { enabled: false } }), { rateLimit: { window: "1m", max: 1 } });
    for (let i = 0; i < 3; i++) expect((await route.call()).status).toBe(200);
    expect(route.description()).toBe("Does nothing.");
  });

  it("words a rule by its largest whole unit", () => {
    expect(ruleText({ windowMs: 60_000, max: 3 })).toBe("3 requests per minute");
    expect(ruleText({ windowMs: 300_000, max: 1 })).toBe("1 request per 5 minutes");
    expect(ruleText({ windowMs: 3_600_000, max: 20 })).toBe("20 requests per hour");
    expect(ruleText({ windowMs: 90_000, max: 5 })).toBe("5 requests per 90 seconds");
    expect(ruleText({ windowMs: 2 * 86_400_000, max: 5 })).toBe("5 requests per 2 days");
    expect(ruleText({ windowMs: 1500, max: 5 })).toBe("5 requests per 1500 milliseconds");
  });
});

describe("docs/options.md lists the default rules the routes declare", () => {
  it("one row per limit, the same paths as the generated descriptions of the every-feature document", async () => {
    const t = createTestAuth({
      plugins: [
        emailOtp({ emailChange: { enabled: true, verifyCurrentEmail: true } }),
        jwt(),
        apiKeys(),
        auditLog(),
        magicLink(),
      ],
    });
    const doc = (await (await t.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description: string }>>;
    };
    const fromRoutes = new Map<string, string>();
    for (const [path, item] of Object.entries(doc.paths))
      for (const op of Object.values(item)) {
        const found = /\n\nRate limit: (.+) per IP \(`rateLimit\.rules\["(.+)"\]`\)\.$/.exec(op.description);
        if (found) {
          expect(found[2]).toBe(path);
          fromRoutes.set(path, found[1]!);
        }
      }
    const text = readFileSync(new URL("../../../../docs/options.md", import.meta.url), "utf8");
    const section = text.slice(text.indexOf("## Default per-IP rules"));
    const table = section.slice(0, section.indexOf("\n## "));
    const fromDocs = new Map<string, string>();
    for (const row of table.matchAll(/^\| (`.+`) \| (.+) \|$/gm))
      for (const path of row[1]!.matchAll(/`([^`]+)`/g)) fromDocs.set(path[1]!, row[2]!);
    expect(Object.fromEntries(fromDocs)).toEqual(Object.fromEntries(fromRoutes));
    expect(fromRoutes.size).toBe(23);
  });
});
