// Latchkey as its users get it: every public package packed, installed with plain npm from the tarballs into fresh
// projects outside the workspace, and driven through one journey (journey.mjs) over real HTTP on Node 20/22/24,
// Bun and Deno, compiled by a strict TypeScript consumer, built into a real Next.js app and a real Workers bundle,
// and its CLI run from the installed package. Nothing here resolves from the workspace's node_modules: the
// runtimes come from npm into a tools project beside the consumers, and the Workers project runs the workerd of the
// wrangler it installs (`wrangler dev`, on the D1 that `wrangler d1 migrations apply --local` wrote).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { startTestRedis } from "../redis-server.ts";
import { packPublicPackages } from "../../scripts/pack-packages.mjs";
import { runJourney } from "./fixtures/plain/journey.mjs";
import {
  copyInto,
  emailCapture,
  freePort,
  npmProject,
  printed,
  run,
  start,
  waitForHttp,
  type Packs,
} from "./harness/projects.ts";
import { BAD_CONFIG, listening, printed as printedLine, SLOW_CONFIG, startServe } from "./harness/serve.ts";
import { exampleProject, expectLocalsJourney } from "./harness/frameworks.ts";
import { docSteps, runDocSteps } from "./harness/doc-steps.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = fileURLToPath(new URL("./fixtures/plain", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "latchkey-consumers-"));
const plain = join(work, "plain");
const tools = join(work, "tools");
// Runtimes from npm, installed beside the consumers (pnpm's shims in the workspace would export NODE_PATH).
const bun = join(tools, "node_modules/.bin/bun");
const deno = join(tools, "node_modules/.bin/deno");
const STEPS = ["sign-up", "session", "email-otp", "api-key", "jwt"];
const HOST_APP = ["@latchkey/core", "@latchkey/hono-adapter", "@latchkey/memory-store"];
let packs: Packs;

/** Runs a journey script (run-*.mjs) and expects its CONSUMER-OK line with every step. */
async function expectJourney(command: string, args: string[], runtime: RegExp): Promise<void> {
  const result = await run(command, args, { cwd: plain, env: { PORT: String(await freePort()) }, timeoutMs: 120_000 });
  const line = result.stdout.split("\n").find((l) => l.startsWith("CONSUMER-OK "));
  expect(line, printed(result)).toBeDefined();
  const report = JSON.parse(line!.slice("CONSUMER-OK ".length)) as { runtime: string; steps: string[] };
  expect(report.runtime).toMatch(runtime);
  expect(report.steps).toEqual(STEPS);
  expect(result.code, printed(result)).toBe(0);
}

beforeAll(async () => {
  mkdirSync(join(work, "packs"));
  packs = Object.fromEntries(
    packPublicPackages(join(work, "packs")).map((p: { name: string; tarball: string }) => [p.name, p.tarball]),
  );
  mkdirSync(plain, { recursive: true });
  copyInto(fixtures, plain, [
    "app.mjs",
    "client-run.mjs",
    "consumer-client.ts",
    "journey.mjs",
    "run-node.mjs",
    "run-express.mjs",
    "run-fastify.mjs",
    "run-node-postgres-redis.mjs",
    "run-bun.mjs",
    "run-deno.mjs",
    "consumer.ts",
    "consumer-libs.ts",
    "tsconfig.bundler.json",
    "tsconfig.nodenext.json",
    "tsconfig.bundler-libs.json",
    "tsconfig.nodenext-libs.json",
  ]);
  await Promise.all([
    // Node 22 and 24 as npm ships them (the `node` package; Node 20 is the one running this test), Bun and Deno.
    npmProject(tools, packs, [], { node22: "npm:node@^22", node24: "npm:node@^24", bun: "^1.4.5", deno: "^2.9.6" }),
    npmProject(
      plain,
      packs,
      [...HOST_APP, "@latchkey/drizzle-store", "@latchkey/cli", "@latchkey/client", "@latchkey/redis-store"],
      {
        hono: "^4.13.19",
        "@hono/node-server": "^2.1.8",
        express: "^5.2.0",
        fastify: "^5.12.8",
        jose: "^6.2.17",
        "@libsql/client": "^0.18.0",
        pg: "^8.23.1",
        redis: "^6.3.1",
        typescript: "5.9.3",
      },
    ),
  ]);
});

// LATCHKEY_KEEP_CONSUMERS=1 keeps the projects for a look after a failure.
afterAll(() => {
  if (!process.env.LATCHKEY_KEEP_CONSUMERS) rmSync(work, { recursive: true, force: true });
});

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

describe("the installed CLI (npx latchkey)", () => {
  const latchkey = (args: string[]) =>
    run("npx", ["--no-install", "latchkey", ...args], { cwd: plain, timeoutMs: 60_000 });

  it("secret prints a fresh 64-character secret each time", async () => {
    const [a, b] = [await latchkey(["secret"]), await latchkey(["secret"])];
    expect(a.stdout.trim(), printed(a)).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(b.stdout.trim()).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(a.stdout).not.toBe(b.stdout);
  });

  /** Migrates the database twice: the first run applies the shipped migrations, the second finds nothing to do. */
  async function expectMigrateTwice(db: { url: string; dispose(): Promise<void> }): Promise<void> {
    try {
      const first = await latchkey(["migrate", "--database", db.url]);
      expect(first.code, printed(first)).toBe(0);
      expect(first.stdout).toContain("applied 0000_initial");
      const second = await latchkey(["migrate", "--database", db.url]);
      expect(second.code, printed(second)).toBe(0);
      expect(second.stdout).toContain("nothing to apply");
    } finally {
      await db.dispose();
    }
  }

  it("migrate applies the shipped migrations to a libSQL file, then nothing", async () => {
    await expectMigrateTwice(await createTestSqliteFile());
  });

  it("migrate applies them to PostgreSQL, then nothing", async () => {
    await expectMigrateTwice(await createTestPostgresDatabase());
  });
});

describe("the getting-started page (docs/getting-started.md), step by step", () => {
  it("an empty folder, npm install, a secret, server.mjs, node: sign-up, the protected route, sign-out, sign-in", async () => {
    const page = readFileSync(join(root, "docs/getting-started.md"), "utf8");
    const steps = docSteps(page);
    // The page's shape: what the reader runs, saves and starts, in that order.
    expect(steps.map((s) => s.kind)).toEqual(["sh", "sh", "file", "server", "sh", "sh"]);
    const dir = join(work, "getting-started");
    mkdirSync(dir);
    const { results, server, cwd } = await runDocSteps(steps, dir, packs, await freePort());
    try {
      expect(cwd).toBe(join(dir, "my-app"));
      expect(readFileSync(join(cwd, ".latchkey-secret"), "utf8").trim()).toMatch(/^[A-Za-z0-9]{64}$/);
      // Sign-up answers the user; the protected route greets them; sign-out succeeds; then /me is refused.
      const tryIt = results[2]!.stdout.split("\n");
      expect(JSON.parse(tryIt[0]!)).toMatchObject({ user: { email: "ada@example.com" } });
      expect(JSON.parse(tryIt[1]!)).toEqual({ hello: "ada@example.com" });
      expect(JSON.parse(tryIt[2]!)).toEqual({ success: true });
      expect(tryIt[3]).toBe("401");
      // Signed in again with the password: the route answers again.
      const again = results[3]!.stdout.split("\n");
      expect(JSON.parse(again[0]!)).toMatchObject({ user: { email: "ada@example.com" } });
      expect(JSON.parse(again[1]!)).toEqual({ hello: "ada@example.com" });
    } finally {
      await server?.stop();
    }
  });
});

describe("examples/nextjs as a real Next.js app", () => {
  it("next build, next start on loopback, the journey through app/api/auth/[...all]/route.ts", async () => {
    const app = join(work, "nextjs");
    mkdirSync(app, { recursive: true });
    copyInto(join(root, "examples/nextjs"), app, [
      "app",
      "lib",
      "instrumentation.ts",
      "next.config.mjs",
      "tsconfig.json",
    ]);
    await npmProject(app, packs, HOST_APP, {
      hono: "^4.13.19",
      next: "^16.4.6",
      react: "^19.3.1",
      "react-dom": "^19.3.1",
      typescript: "5.9.3",
      "@types/react": "^19.3.0",
      "@types/node": "^22.20.5",
    });
    const build = await run(process.execPath, [join(app, "node_modules/next/dist/bin/next"), "build"], {
      cwd: app,
      env: { NEXT_TELEMETRY_DISABLED: "1" },
    });
    expect(build.code, printed(build)).toBe(0);
    const capture = await emailCapture();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(
      process.execPath,
      [join(app, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
      {
        cwd: app,
        env: {
          NEXT_TELEMETRY_DISABLED: "1",
          LATCHKEY_SECRET: "n".repeat(64),
          LATCHKEY_BASE_URL: base,
          // `next start` is production: without the proxy said, the example refuses to start (instrumentation.ts).
          LATCHKEY_PROXY_HOPS: "1",
          EMAIL_WEBHOOK_URL: capture.url,
        },
      },
    );
    try {
      await waitForHttp(`${base}/api/auth/get-session`, server);
      expect(await runJourney(base, capture.outbox, { prefix: "/api/auth", hostRoute: null })).toEqual(STEPS);
    } finally {
      await server.stop();
      await capture.close();
    }
  });
});

// SvelteKit 3 and Astro 7 need Node >= 22.17 and >= 22.12: the Node 24 from npm builds and serves them.
describe("examples/sveltekit as a real SvelteKit app (adapter-node)", () => {
  it("vite build and strict tsc, the built server on loopback: the journey through the handle hook at /auth, locals on a page and a route, sign-out; no secret, no start", async () => {
    const app = join(work, "sveltekit");
    await exampleProject(root, "sveltekit", app, ["src", "vite.config.ts", "tsconfig.json"], packs);
    const node24 = join(tools, "node_modules/node24/bin/node");
    // ORIGIN at build time is the app's public origin (paths.origin): adapter-node would assume https otherwise.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // NODE_ENV=production as a deploy builds (Vite makes `dev` true for any other NODE_ENV, such as Vitest's "test").
    const build = await run(node24, [join(app, "node_modules/vite/bin/vite.js"), "build"], {
      cwd: app,
      env: { ORIGIN: base, NODE_ENV: "production" },
    });
    expect(build.code, printed(build)).toBe(0);
    // Strict TypeScript over the example's .ts files, against the route types the build generated.
    const tsc = await run(node24, [join(app, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app });
    expect(tsc.code, printed(tsc)).toBe(0);
    // The `init` hook builds the auth at start: without LATCHKEY_SECRET the server stops before listening.
    const refused = await run(node24, ["build/index.js"], {
      cwd: app,
      env: { NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(await freePort()) },
      timeoutMs: 60_000,
    });
    expect(refused.code, printed(refused)).not.toBe(0);
    expect(refused.stderr).toMatch(/secret must be a string of at least 32 characters/);
    expect(refused.stdout).not.toMatch(/Listening/);

    const capture = await emailCapture();
    const server = start(node24, ["build/index.js"], {
      cwd: app,
      env: {
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(port),
        LATCHKEY_SECRET: "k".repeat(64),
        LATCHKEY_BASE_URL: base,
        EMAIL_WEBHOOK_URL: capture.url,
      },
    });
    try {
      await waitForHttp(`${base}/auth/get-session`, server);
      expect(await runJourney(base, capture.outbox, { prefix: "/auth", hostRoute: "/me" })).toEqual(STEPS);
      await expectLocalsJourney(base, "sveltekit");
      // A native client (Bearer, no Origin) passes SvelteKit's CSRF check with JSON bodies, as @latchkey/client
      // sends every POST; SvelteKit refuses a body-less POST without Origin (docs/runtimes.md says so).
      const native = { "content-type": "application/json", "latchkey-credentials": "bearer" };
      const up = await fetch(`${base}/auth/sign-up/email`, {
        method: "POST",
        headers: native,
        body: JSON.stringify({ email: "native@consumer.example", password: "correct horse battery" }),
      });
      expect(up.status, await up.clone().text()).toBe(200);
      const authorization = `Bearer ${((await up.json()) as { credentials: { token: string } }).credentials.token}`;
      const bare = await fetch(`${base}/auth/sign-out`, { method: "POST", headers: { authorization } });
      expect(bare.status).toBe(403);
      const out = await fetch(`${base}/auth/sign-out`, {
        method: "POST",
        headers: { ...native, authorization },
        body: "{}",
      });
      expect(out.status, await out.clone().text()).toBe(200);
      expect(await (await fetch(`${base}/auth/get-session`, { headers: { authorization } })).json()).toBeNull();
    } finally {
      await server.stop();
      await capture.close();
    }
  });
});

describe("examples/astro as a real Astro app (@astrojs/node standalone)", () => {
  it("astro build and strict tsc, the standalone server on loopback: the journey through the middleware at /auth, locals on a page and a route, sign-out", async () => {
    const app = join(work, "astro");
    await exampleProject(root, "astro", app, ["src", "astro.config.mjs", "tsconfig.json"], packs);
    const node24 = join(tools, "node_modules/node24/bin/node");
    // NODE_ENV=production as a deploy builds (Vite makes import.meta.env.DEV true for any other NODE_ENV, such as
    // Vitest's "test").
    const quiet = { ASTRO_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };
    const build = await run(node24, [join(app, "node_modules/astro/bin/astro.mjs"), "build"], { cwd: app, env: quiet });
    expect(build.code, printed(build)).toBe(0);
    // Strict TypeScript over the example's .ts files, against the types the build generated (.astro/).
    const tsc = await run(node24, [join(app, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json", "--noEmit"], {
      cwd: app,
    });
    expect(tsc.code, printed(tsc)).toBe(0);
    const capture = await emailCapture();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(node24, ["dist/server/entry.mjs"], {
      cwd: app,
      env: {
        ...quiet,
        HOST: "127.0.0.1",
        PORT: String(port),
        LATCHKEY_SECRET: "a".repeat(64),
        LATCHKEY_BASE_URL: base,
        EMAIL_WEBHOOK_URL: capture.url,
      },
    });
    try {
      await waitForHttp(`${base}/auth/get-session`, server);
      expect(await runJourney(base, capture.outbox, { prefix: "/auth", hostRoute: "/me" })).toEqual(STEPS);
      await expectLocalsJourney(base, "astro");
    } finally {
      await server.stop();
      await capture.close();
    }
  });
});

describe("examples/cloudflare-workers as a real Workers build", () => {
  it("wrangler migrates its local D1 from the shipped SQL, latchkey migrate --d1 shares that history, wrangler bundles the installed packages, and wrangler dev serves the journey on that D1", async () => {
    const app = join(work, "workers");
    mkdirSync(app, { recursive: true });
    copyInto(join(root, "examples/cloudflare-workers"), app, ["src/worker.ts", "src/email.ts", "wrangler.toml"]);
    await npmProject(app, packs, [...HOST_APP, "@latchkey/drizzle-store", "@latchkey/cli"], {
      hono: "^4.13.19",
      wrangler: "^4.164.0",
    });
    // wrangler needs Node >= 22: the Node 24 from npm runs it (and the CLI, which loads wrangler's own Miniflare).
    const node24 = join(tools, "node_modules/node24/bin/node");
    const wrangler = join(app, "node_modules/wrangler/bin/wrangler.js");
    const quiet = { WRANGLER_SEND_METRICS: "false", CI: "1", NO_UPDATE_NOTIFIER: "1" };
    // The README's migration command against the local D1 (`--remote` reaches Cloudflare): wrangler reads
    // migrations_dir, the SQL folder inside the installed @latchkey/drizzle-store.
    const applied = await run(node24, [wrangler, "d1", "migrations", "apply", "latchkey-auth", "--local"], {
      cwd: app,
      env: quiet,
    });
    expect(applied.code, printed(applied)).toBe(0);
    expect(applied.stdout, printed(applied)).toContain("0000_initial.sql");
    const cli = await run(node24, [join(app, "node_modules/@latchkey/cli/dist/bin.js"), "migrate", "--d1", "DB"], {
      cwd: app,
    });
    expect(cli.code, printed(cli)).toBe(0);
    expect(cli.stdout, printed(cli)).toContain("nothing to apply");
    const bundle = await run(node24, [wrangler, "deploy", "--dry-run", "--outdir", "out"], { cwd: app, env: quiet });
    expect(bundle.code, printed(bundle)).toBe(0);
    expect(bundle.stdout, printed(bundle)).toMatch(/env\.DB.*latchkey-auth/);
    const capture = await emailCapture();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The worker requires LATCHKEY_BASE_URL (it never takes links or origins from the Host it is reached on).
    writeFileSync(
      join(app, ".dev.vars"),
      `LATCHKEY_SECRET=${"w".repeat(64)}\nLATCHKEY_BASE_URL=${base}\nEMAIL_WEBHOOK_URL=${capture.url}\n`,
    );
    // wrangler dev opens the D1 that `migrations apply --local` wrote (.wrangler/state), with its own workerd.
    const server = start(
      node24,
      [
        wrangler,
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(await freePort()),
        "--show-interactive-dev-session=false",
      ],
      { cwd: app, env: quiet },
    );
    try {
      await waitForHttp(`${base}/auth/get-session`, server);
      expect(await runJourney(base, capture.outbox, { prefix: "/auth", hostRoute: null })).toEqual(STEPS);
    } finally {
      await server.stop();
      await capture.close();
    }
  });
});

describe("the installed `latchkey serve` and `latchkey init` (Node 20, no loader installed by the project)", () => {
  // The starter config refuses production without an email sender; on a laptop (plain HTTP) it is development.
  const env = (url: string, nodeEnv = "development") => ({
    LATCHKEY_SECRET: "c".repeat(64),
    LATCHKEY_DATABASE_URL: url,
    LATCHKEY_BASE_URL: "http://127.0.0.1",
    NODE_ENV: nodeEnv,
  });
  const signUp = (url: string, email: string) =>
    fetch(`${url}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "consumer serve password" }),
    });

  it("init writes latchkey.config.ts; serve runs it (TypeScript through the CLI's own loader) on PostgreSQL: health, sign-up, JWKS, request log; rotate-jwks", async () => {
    const db = await createTestPostgresDatabase();
    try {
      const init = await run("npx", ["--no-install", "latchkey", "init"], { cwd: plain, timeoutMs: 60_000 });
      expect(init.code, printed(init)).toBe(0);
      expect(init.stdout).toContain("npx latchkey serve");
      const migrated = await run("npx", ["--no-install", "latchkey", "migrate", "--database", db.url], {
        cwd: plain,
        timeoutMs: 60_000,
      });
      expect(migrated.code, printed(migrated)).toBe(0);
      const server = startServe(plain, ["--port", "0"], env(db.url));
      try {
        const url = await listening(server);
        expect((await fetch(`${url}/health`)).status).toBe(200);
        expect((await signUp(url, "served@example.com")).status).toBe(200);
        const jwks = (await (await fetch(`${url}/auth/jwks`)).json()) as { keys: unknown[] };
        expect(jwks.keys).toHaveLength(1);
        // Development's request log: one plain line per request (production's is JSON, tested in the CLI's suite).
        await printedLine(server, "POST /auth/sign-up/email ");
        expect(server.output()).toMatch(/^POST \/auth\/sign-up\/email 200 [\d.]+ms$/m);
        expect(server.output()).not.toContain("consumer serve password");
      } finally {
        server.child.kill("SIGTERM");
        expect(await server.exit).toBe(0);
      }
      // The operator's rotation from the same config (the JWKS had its first key from the request above).
      const rotated = await run("npx", ["--no-install", "latchkey", "rotate-jwks"], {
        cwd: plain,
        env: env(db.url),
        timeoutMs: 60_000,
      });
      expect(rotated.code, printed(rotated)).toBe(0);
      expect(rotated.stdout).toMatch(/^new signing key \S+;/);
    } finally {
      await db.dispose();
    }
  });

  it("SIGTERM with requests in flight: they finish and are stored, then the process ends by itself with 0", async () => {
    const db = await createTestPostgresDatabase();
    try {
      writeFileSync(join(plain, "slow.config.mjs"), SLOW_CONFIG);
      const migrated = await run("npx", ["--no-install", "latchkey", "migrate", "--database", db.url], {
        cwd: plain,
        timeoutMs: 60_000,
      });
      expect(migrated.code, printed(migrated)).toBe(0);
      const server = startServe(plain, ["--config", "slow.config.mjs", "--port", "0"], env(db.url));
      const url = await listening(server);
      const answers = [0, 1, 2].map((i) => signUp(url, `inflight-${i}@example.com`));
      await printedLine(server, "HASHING", 3);
      server.child.kill("SIGTERM");
      expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(await server.exit).toBe(0);
      expect(server.output()).toContain("latchkey stopped");
      const stored = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import pg from "pg"; const c = new pg.Client({ connectionString: process.argv[1] }); await c.connect(); const r = await c.query("select count(*)::int as n from users where email like 'inflight-%'"); console.log("USERS " + r.rows[0].n); await c.end();`,
          db.url,
        ],
        { cwd: plain },
      );
      expect(stored.stdout, printed(stored)).toContain("USERS 3");
    } finally {
      await db.dispose();
    }
  });

  it("a bad config and an unreachable database are refused at start with a clear message and exit 1", async () => {
    writeFileSync(join(plain, "bad.config.mjs"), BAD_CONFIG);
    const bad = startServe(plain, ["--config", "bad.config.mjs", "--port", "0"], {});
    expect(await bad.exit).toBe(1);
    expect(bad.output()).toMatch(/invalid config: .*sesion.*session/);
    const away = startServe(plain, ["--port", "0", "--database-wait", "1"], env("postgres://u:pw@127.0.0.1:9/none"));
    expect(await away.exit).toBe(1);
    expect(away.output()).toMatch(/the database did not answer within 1 s/);
    expect(away.output()).not.toContain("listening");
    const noSender = startServe(plain, ["--port", "0"], env("postgres://u:pw@127.0.0.1:9/none", "production"));
    expect(await noSender.exit).toBe(1);
    expect(noSender.output()).toMatch(/no email sender: production needs email\.sender/);
    expect(noSender.output()).not.toContain("listening");
  });
});
