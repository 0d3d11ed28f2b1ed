// The examples built as real apps on the packed tarballs (consumers-setup.ts): Next.js, SvelteKit (adapter-node),
// Astro (@astrojs/node) and a Workers bundle, whose project runs the workerd of the wrangler it installs (`wrangler
// dev`, on the D1 that `wrangler d1 migrations apply --local` wrote).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runJourney } from "./fixtures/plain/journey.mjs";
import { packs, root, STEPS, tools, work } from "./consumers-fixture.ts";
import {
  copyInto,
  emailCapture,
  freePort,
  HOST_APP,
  npmProject,
  printed,
  run,
  start,
  waitForHttp,
} from "./harness/projects.ts";
import { exampleProject, expectLocalsJourney } from "./harness/frameworks.ts";

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
