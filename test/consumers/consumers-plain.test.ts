// Latchkey as its users get it, in the plain project installed from the tarballs (consumers-setup.ts): one journey
// (journey.mjs) over real HTTP on Node 20/22/24, Bun and Deno, Express and Fastify, PostgreSQL with Redis counters,
// a strict TypeScript consumer, and the installed @latchkey/client. Nothing resolves from the workspace's
// node_modules: the runtimes come from npm into a tools project beside the consumers.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestPostgresDatabase } from "@latchkey/test-support";
import { startTestRedis } from "../redis-server.ts";
import { bun, deno, expectJourney, plain, STEPS, tools } from "./consumers-fixture.ts";
import { freePort, printed, run } from "./harness/projects.ts";

describe("installed from tarballs into a plain project", () => {
  it("Node 20, plain ESM (.mjs, no loader): the journey over HTTP through the consumer's own Hono", async () => {
    await expectJourney(process.execPath, ["run-node.mjs"], /^node v20\./);
  });

  it("Node 20 on PostgreSQL (pg, migrated by the installed CLI) with @latchkey/redis-store counters; health; the process ends after auth.close()", async () => {
    const db = await createTestPostgresDatabase();
    const redis = await startTestRedis();
    try {
      const migrated = await run("npx", ["--no-install", "latchkey", "migrate", "--database", db.url], {
        cwd: plain,
        timeoutMs: 60_000,
      });
      expect(migrated.code, printed(migrated)).toBe(0);
      const result = await run(process.execPath, ["run-node-postgres-redis.mjs"], {
        cwd: plain,
        env: { PORT: String(await freePort()), DATABASE_URL: db.url, REDIS_URL: redis.url },
        timeoutMs: 120_000,
      });
      const line = result.stdout.split("\n").find((l) => l.startsWith("CONSUMER-OK "));
      expect(line, printed(result)).toBeDefined();
      const report = JSON.parse(line!.slice("CONSUMER-OK ".length)) as {
        steps: string[];
        health: [number, unknown];
        redisKeys: number;
      };
      expect(report.steps).toEqual(STEPS);
      expect(report.health).toEqual([200, { status: "ok" }]);
      expect(report.redisKeys).toBeGreaterThan(0);
      // Exited by itself (no timeout kill): nothing was left open after auth.close().
      expect(result.code, printed(result)).toBe(0);
    } finally {
      await redis.stop();
      await db.dispose();
    }
  });

  it("Express 5: the installed @latchkey/hono-adapter/node listener at /auth, a guarded /me of the app's own", async () => {
    await expectJourney(process.execPath, ["run-express.mjs"], /^node v20\./);
  });

  it("Fastify 5: the same listener in a parser-free plugin with hijacked replies, a guarded /me", async () => {
    await expectJourney(process.execPath, ["run-fastify.mjs"], /^node v20\./);
  });

  it("Node 22 (the node package from npm)", async () => {
    await expectJourney(join(tools, "node_modules/node22/bin/node"), ["run-node.mjs"], /^node v22\./);
  });

  it("Node 24 (the node package from npm)", async () => {
    await expectJourney(join(tools, "node_modules/node24/bin/node"), ["run-node.mjs"], /^node v24\./);
  });

  it("Bun", async () => {
    await expectJourney(bun, ["run-bun.mjs"], /^bun /);
  });

  it("Deno, packages from the project's package.json and node_modules", async () => {
    await expectJourney(deno, ["run", "--allow-all", "--no-prompt", "run-deno.mjs"], /^deno /);
  });

  it("a strict TypeScript consumer compiles with moduleResolution bundler and nodenext (our .d.ts checked as source too)", async () => {
    const tsc = join(plain, "node_modules/typescript/bin/tsc");
    for (const config of ["bundler", "nodenext", "bundler-libs", "nodenext-libs"]) {
      const result = await run(process.execPath, [tsc, "-p", `tsconfig.${config}.json`], { cwd: plain });
      expect(result.code, `${config}: ${printed(result)}`).toBe(0);
    }
  });

  it("the TypeScript check fails on a wrong use (c.var.user has no such field; an unknown plugin API)", async () => {
    writeFileSync(
      join(plain, "consumer-wrong.ts"),
      [
        'import { Hono } from "hono";',
        'import { createAuth } from "@latchkey/hono-adapter";',
        'import { memoryStore } from "@latchkey/memory-store";',
        'const auth = createAuth({ secret: "s".repeat(64), baseUrl: "https://app.example", database: memoryStore() });',
        "const app = new Hono();",
        'app.get("/me", auth.requireUser, (c) => c.json({ nope: c.var.user.notAField }));',
        "export const missing = auth.api.noSuchOperation;",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(plain, "tsconfig.wrong.json"),
      JSON.stringify({ extends: "./tsconfig.nodenext.json", files: ["consumer-wrong.ts"] }),
    );
    const result = await run(
      process.execPath,
      [join(plain, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.wrong.json"],
      { cwd: plain },
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/consumer-wrong\.ts\(6,.*Property 'notAField' does not exist/);
    expect(result.stdout).toMatch(/consumer-wrong\.ts\(7,.*Property 'noSuchOperation' does not exist/);
  });
});

describe("the installed @latchkey/client", () => {
  it("drives the installed server (bearer mode, no React installed): typed calls, typed errors, set-auth-jwt, the session store", async () => {
    const result = await run(process.execPath, ["client-run.mjs"], { cwd: plain, timeoutMs: 60_000 });
    const line = result.stdout.split("\n").find((l) => l.startsWith("CLIENT-OK "));
    expect(line, printed(result)).toBeDefined();
    expect(JSON.parse(line!.slice("CLIENT-OK ".length))).toEqual({
      email: "consumer@example.com",
      jwt: true,
      jwtAfterSignOut: false,
      wrong: "INVALID_CREDENTIALS",
      token: null,
      // The first get-session (started by subscribe) left before the sign-up: its "no session" is stale and never
      // shown (the client's generation counter), so the store goes from pending to the user, then to signed out.
      seen: ["consumer@example.com", null],
    });
  });

  it("type-checks under strict tsc (bundler and nodenext), and a wrong body field does not", async () => {
    const tsc = join(plain, "node_modules/typescript/bin/tsc");
    writeFileSync(
      join(plain, "consumer-client-wrong.ts"),
      'import { createLatchkeyClient } from "@latchkey/client";\nexport const p = createLatchkeyClient({ baseURL: "/auth" }).signInEmail({ emial: "a@example.com", password: "x" });\n',
    );
    for (const [moduleResolution, module] of [
      ["bundler", "ESNext"],
      ["nodenext", "NodeNext"],
    ]) {
      const options = {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: "ES2022",
        module,
        moduleResolution,
        lib: ["ES2023", "DOM"],
        types: [],
      };
      writeFileSync(
        join(plain, "tsconfig.client.json"),
        JSON.stringify({ compilerOptions: options, files: ["consumer-client.ts"] }),
      );
      const ok = await run(process.execPath, [tsc, "-p", "tsconfig.client.json"], { cwd: plain });
      expect(ok.code, `${moduleResolution}: ${printed(ok)}`).toBe(0);
      writeFileSync(
        join(plain, "tsconfig.client-wrong.json"),
        JSON.stringify({ compilerOptions: options, files: ["consumer-client-wrong.ts"] }),
      );
      const wrong = await run(process.execPath, [tsc, "-p", "tsconfig.client-wrong.json"], { cwd: plain });
      expect(wrong.stdout).toMatch(/consumer-client-wrong\.ts\(2,.*'emial'/);
    }
  });
});
