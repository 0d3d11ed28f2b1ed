import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { packPublicPackages } from "../../scripts/pack-packages.mjs";
import { runJourney } from "./fixtures/plain/journey.mjs";
import { copyInto, emailCapture, freePort, npmProject, printed, run } from "./harness/projects.ts";
const root = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "i18-consumer-"));
const tools = join(work, "tools");
const STEPS = ["sign-up", "session", "email-otp", "api-key", "jwt"];
const HOST_APP = ["@latchkey/core", "@latchkey/hono-adapter", "@latchkey/memory-store"];
function check(value: unknown, message?: string) {
  return { toBe(e: unknown) { if (value !== e) throw new Error(`${String(value)} !== ${String(e)} ${message ?? ""}`); console.log("ok", e); },
    toContain(e: string) { if (!String(value).includes(e)) throw new Error(`missing ${e} ${message ?? ""}`); console.log("ok contains", e); },
    toEqual(e: unknown) { if (JSON.stringify(value) !== JSON.stringify(e)) throw new Error(`${JSON.stringify(value)} != ${JSON.stringify(e)}`); console.log("ok", JSON.stringify(e)); } };
}
mkdirSync(join(work, "packs"));
const packs = Object.fromEntries(packPublicPackages(join(work, "packs")).map((p: { name: string; tarball: string }) => [p.name, p.tarball]));
await npmProject(tools, packs, [], { node24: "npm:node@^24" });
console.log("tools ready", work);
    const app = join(work, "workers");
    mkdirSync(app, { recursive: true });
    copyInto(join(root, "examples/cloudflare-workers"), app, ["src/worker.ts", "src/email.ts", "wrangler.toml"]);
    await npmProject(app, packs, [...HOST_APP, "@latchkey/drizzle-store", "@latchkey/cli"], { hono: "^4.13.19", wrangler: "^4.164.0" });
    // wrangler needs Node >= 22: the Node 24 from npm runs it (and the CLI, which loads wrangler's Miniflare).
    const node24 = join(tools, "node_modules/node24/bin/node");
    const wrangler = join(app, "node_modules/wrangler/bin/wrangler.js");
    const quiet = { WRANGLER_SEND_METRICS: "false", CI: "1", NO_UPDATE_NOTIFIER: "1" };
    // The README's migration command, against the local D1 (`--remote` reaches Cloudflare): wrangler reads
    // migrations_dir, the SQL folder inside the installed @latchkey/drizzle-store.
    const applied = await run(node24, [wrangler, "d1", "migrations", "apply", "latchkey-auth", "--local"], { cwd: app, env: quiet });
    check(applied.code, printed(applied)).toBe(0);
    check(applied.stdout, printed(applied)).toContain("0000_initial.sql");
    const cli = await run(node24, [join(app, "node_modules/@latchkey/cli/dist/bin.js"), "migrate", "--d1", "DB"], { cwd: app });
    check(cli.code, printed(cli)).toBe(0);
    check(cli.stdout, printed(cli)).toContain("nothing to apply");
    const bundle = await run(node24, [wrangler, "deploy", "--dry-run", "--outdir", "out"], { cwd: app, env: quiet });
    check(bundle.code, printed(bundle)).toBe(0);
    const capture = await emailCapture();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const mf = new Miniflare({
      // The module list names the bundle relative to its folder (workerd refuses paths that climb out of it).
      modules: true,
      scriptPath: join(app, "out/worker.js"),
      modulesRoot: join(app, "out"),
      compatibilityDate: "2026-04-01",
      host: "127.0.0.1",
      port,
      bindings: { LATCHKEY_SECRET: "w".repeat(64), LATCHKEY_BASE_URL: base, EMAIL_WEBHOOK_URL: capture.url },
      // The D1 wrangler migrated: `wrangler dev` opens a binding without database_id under its binding name.
      d1Databases: { DB: "DB" },
      d1Persist: join(app, ".wrangler/state/v3/d1"),
    });
    try {
      await mf.ready;
      check(await runJourney(base, capture.outbox, { prefix: "/auth", hostRoute: null })).toEqual(STEPS);
    } finally {
      await mf.dispose();
      await capture.close();
    }

console.log("DONE");
