import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
import { BASE_URL, TEST_SECRET, createTestAuth } from "../test/test-auth.ts";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

async function documentVersion(handler: (request: Request) => Response | Promise<Response>): Promise<unknown> {
  const res = await handler(new Request(`${BASE_URL}/auth/openapi.json`));
  expect(res.status).toBe(200);
  return ((await res.json()) as { info: { version: unknown } }).info.version;
}

// The document does not depend on the store: once, in the memory-store project.
describe.runIf(!process.env.LATCHKEY_TEST_STORE)("OpenAPI info.version", () => {
  it("is the package's version, from the sources", async () => {
    const t = createTestAuth();
    const res = await t.request("GET", "/openapi.json");
    expect(((await res.json()) as { info: { version: unknown } }).info.version).toBe(manifest.version);
  });

  it("is the package's version in the built package (dist/ inlines it)", async () => {
    const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    const built = (await import(dist)) as typeof import("./index.ts");
    const auth = built.createAuth({ secret: TEST_SECRET, database: memoryStore(), baseUrl: BASE_URL });
    expect(await documentVersion(auth.handler)).toBe(manifest.version);
  });
});
