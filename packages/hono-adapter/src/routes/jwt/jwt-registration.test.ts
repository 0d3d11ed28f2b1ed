import { describe, expect, it } from "vitest";
import { jwt } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts } from "../../../test/routes/jwt/test-fixtures.ts";

describe("registration", () => {
  it("without jwt() the paths answer 404 and get-session has no header", async () => {
    const t = createTestAuth();
    const { token: session } = await t.signUp("ada@example.com");
    expect((await t.request("GET", "/jwks")).status).toBe(404);
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(404);
    expect(
      (await t.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt"),
    ).toBeNull();
    // @ts-expect-error: jwt() is not installed, so auth.api has no verifyJwt (JavaScript callers get NOT_FOUND).
    await expect(t.auth.api.verifyJwt("x.y.z")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("jwksPath and tokenPath move the endpoints", async () => {
    const t = createTestAuth({ plugins: [jwt({ jwksPath: "/.well-known/jwks.json", tokenPath: "/jwt/issue" })] });
    const { token: session } = await t.signUp("ada@example.com");
    expect((await t.request("GET", "/jwks")).status).toBe(404);
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(404);
    const res = await t.request("POST", "/jwt/issue", { headers: bearer(session) });
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const jwks = (await (await t.request("GET", "/.well-known/jwks.json")).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual([decodeParts(token).header.kid]);
  });

  it("documents both endpoints in OpenAPI, with the stateless warning on /token", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const doc = (await (await t.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description: string }>>;
    };
    expect(Object.keys(doc.paths["/token"]!).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/token"]!.post!.description).toMatch(/stateless.*sign(ing)? out/is);
    expect(doc.paths["/jwks"]!.get).toBeDefined();
  });
});
