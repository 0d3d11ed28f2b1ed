import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jwt } from "@latchkey/core";
import { createTestAuth } from "../test/test-auth.ts";

// Documented defaults are read from the running code, not restated: every `max-age=N` the docs and the FastAPI
// example give for GET /jwks is the header the server sends, and the body limit the docs name is the one refused.
const repo = (path: string) => readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), "utf8");

describe("documented defaults match the code", () => {
  it("GET /jwks's Cache-Control as docs/other-languages.md, docs/jwt.md and the FastAPI example say", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const header = (await t.request("GET", "/jwks")).headers.get("cache-control")!;
    const maxAge = Number(/max-age=(\d+)/.exec(header)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    for (const doc of ["docs/other-languages.md", "docs/jwt.md"]) {
      for (const [, value] of repo(doc).matchAll(/max-age=(\d+)/g)) expect(Number(value), doc).toBe(maxAge);
      if (!header.includes("public")) expect(repo(doc), doc).not.toMatch(/Cache-Control: public/);
    }
    const fastapi = repo("examples/fastapi/app/latchkey.py");
    expect(Number(/jwks_max_age_seconds=(\d+)/.exec(fastapi)?.[1]), "FastAPI example").toBe(maxAge);
  });

  it("the request body limit the docs name (64 KiB) is the one the server applies", async () => {
    const t = createTestAuth();
    const documented = Number(/JSON only \(415\), at most (\d+) KiB \(413/.exec(repo("docs/security.md"))?.[1]);
    expect(documented).toBeGreaterThan(0);
    const body = (size: number) => JSON.stringify({ email: "ada@example.com", password: "x".repeat(size) });
    const over = await t.request("POST", "/sign-in/email", { body: body(documented * 1024) });
    expect(over.status).toBe(413);
    const under = await t.request("POST", "/sign-in/email", { body: body(documented * 1024 - 100) });
    expect(under.status).not.toBe(413);
  });
});
