import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { apiKeys, auditLog, emailOtp, github, jwt, oauth } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../../test/test-auth.ts";

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
interface Document {
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { name?: string }>;
    schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
  };
}

/** Every feature on: the document the linters judge. */
function everyFeature() {
  return createTestAuth({
    plugins: [
      emailOtp({ emailChange: { enabled: true, verifyCurrentEmail: true } }),
      jwt(),
      apiKeys(),
      auditLog(),
      oauth({ providers: [github({ clientId: "id", clientSecret: "secret" })] }),
    ],
  });
}

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: ROOT,
        timeout: 120_000,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : 127) : 0,
          output: `${stdout}\n${stderr}`,
        });
      },
    );
  });
}

const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

// The document does not depend on the store: lint it once, in the memory-store project.
describe.runIf(!process.env.LATCHKEY_TEST_STORE)("the OpenAPI document", () => {
  it("has a unique operationId and a declared tag on every operation, and the error statuses of its checks", async () => {
    const doc = (await (await everyFeature().request("GET", "/openapi.json")).json()) as Document;
    const ops = operations(doc);
    expect(ops.length).toBe(46);
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tagNames = doc.tags.map((t) => t.name);
    for (const { path, method, op } of ops) {
      expect(op.tags?.length, `${method} ${path}`).toBe(1);
      expect(tagNames, `${method} ${path}`).toContain(op.tags![0]);
      const statuses = Object.keys(op.responses);
      if (method !== "get")
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["403", "413", "415", "429"]));
      if (op.requestBody) expect(statuses, `${method} ${path}`).toContain("400");
      if (op.security?.some((s) => JSON.stringify(s) === '{"sessionCookie":[]}'))
        expect(statuses, `${method} ${path}`).toContain("401");
    }
    expect(doc.paths["/sign-in/email"]!.post!.operationId).toBe("signInEmail");
    expect(doc.paths["/user"]!.patch!.responses).toHaveProperty("409");
    // Error codes are an enum (typed clients get a union).
    expect(doc.components.schemas.Error!.properties!.code!.enum).toEqual(
      expect.arrayContaining(["INVALID_CREDENTIALS", "RATE_LIMITED", "EMAIL_TAKEN"]),
    );
  });

  it("names the configured session cookie and the servers where it is mounted", async () => {
    const secure = (await (await everyFeature().request("GET", "/openapi.json")).json()) as Document;
    expect(secure.components.securitySchemes.sessionCookie!.name).toBe("__Host-latchkey.session");
    expect(secure.servers.map((s) => s.url)).toEqual([`${BASE_URL}/auth`, "/auth"]);

    const dev = createTestAuth({ environment: "development", cookies: { secure: false } });
    const host = new Hono().route("/api/identity", dev.auth.app);
    const mounted = (await (await host.request(`${BASE_URL}/api/identity/openapi.json`)).json()) as Document;
    expect(mounted.components.securitySchemes.sessionCookie!.name).toBe("latchkey.session");
    expect(mounted.servers.map((s) => s.url)).toEqual([`${BASE_URL}/api/identity`, "/api/identity"]);
    // Without plugins, the tags of missing features are not listed.
    expect(mounted.tags.map((t) => t.name)).not.toContain("API keys");
  });

  it("passes `redocly lint` (recommended) with no errors and `spectral lint` (spectral:oas) with no findings", async () => {
    const doc = await (await everyFeature().request("GET", "/openapi.json")).text();
    const file = join(mkdtempSync(join(tmpdir(), "latchkey-openapi-")), "openapi.json");
    writeFileSync(file, doc);
    const redocly = await run(bin("redocly"), [
      "lint",
      "--config",
      join(ROOT, "redocly.yaml"),
      "--format",
      "summary",
      file,
    ]);
    expect(redocly.output).not.toMatch(/\berror\b/i);
    expect(redocly.code, redocly.output).toBe(0);
    const spectral = await run(bin("spectral"), [
      "lint",
      "--ruleset",
      join(ROOT, ".spectral.yaml"),
      "--fail-severity",
      "hint",
      "--format",
      "text",
      file,
    ]);
    expect(spectral.code, spectral.output).toBe(0);
  }, 120_000);
});
