import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

const url = (path: string) => `${BASE_URL}/auth${path}`;

describe("a known path with the wrong method", () => {
  it("is 405 with Allow (sub-app mounted by a host, and the standalone handler); unknown paths stay 404", async () => {
    const t = createTestAuth({ plugins: [jwt(), emailOtp()] });
    const host = new Hono();
    host.route("/auth", t.auth.app);
    const cases: Array<[string, string, string]> = [
      ["GET", "/sign-in/email", "POST"],
      ["DELETE", "/sign-out", "POST"],
      ["POST", "/get-session", "GET, HEAD"],
      ["PUT", "/token", "GET, HEAD, POST"],
      ["GET", "/email-otp/send-verification-otp", "POST"],
      ["POST", "/user", "PATCH"],
    ];
    for (const [method, path, allow] of cases) {
      for (const [name, fetcher] of [
        ["host", (r: Request) => host.fetch(r)],
        ["handler", (r: Request) => t.auth.handler(r)],
      ] as const) {
        const res = await fetcher(new Request(url(path), { method }));
        expect(res.status, `${name} ${method} ${path}`).toBe(405);
        expect(res.headers.get("allow")).toBe(allow);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        const body = await res.json();
        expect(body.code).toBe("METHOD_NOT_ALLOWED");
        expect(body.message).toContain(allow.split(", ")[0]);
      }
    }
    const unknown = await t.auth.handler(new Request(url("/sign-in/emial"), { method: "GET" }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("allow")).toBeNull();
    // A disabled feature's path is unknown, not a 405.
    expect((await t.auth.handler(new Request(url("/api-key/list"), { method: "POST" }))).status).toBe(404);
  });

  it("the OpenAPI document lists 405 and marks the no-field bodies optional", async () => {
    const t = createTestAuth({ plugins: [apiKeys(), jwt()] });
    const doc = await (await t.request("GET", "/openapi.json")).json();
    for (const [path, item] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )) {
      for (const [method, op] of Object.entries(item)) expect(op.responses["405"], `${method} ${path}`).toBeDefined();
    }
    for (const path of ["/sign-out", "/delete-account/request", "/api-key/delete-all-expired", "/token"]) {
      const body = doc.paths[path].post.requestBody;
      expect(body?.required, path).toBe(false);
      expect(body.content["application/json"]).toBeDefined();
    }
    expect(doc.paths["/sign-in/email"].post.requestBody.required).toBe(true);
  });
});
