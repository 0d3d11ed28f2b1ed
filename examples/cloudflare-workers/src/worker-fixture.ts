// What the Cloudflare Workers suites share (worker.test.ts, worker-two-factor.test.ts, worker-sessions.test.ts,
// worker-social-passkeys.test.ts): the worker bundled once per run (bundle-setup.ts), one D1 on disk as
// `wrangler dev` keeps it, migrated from the shipped SQL, the workerd instances (Miniflare) a file uses over it, a
// real OpenID provider and a webhook that captures the worker's emails, and the edge in front of the instances.
// Each file calls setUpWorkers() once: its own D1, provider, webhook and instances.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { startWorker, type RunningWorker, type WorkerBundle } from "@latchkey/e2e/workerd";
import { MIGRATIONS_FOLDERS, readSqlMigrations } from "@latchkey/drizzle-store";
import { migrateD1Database } from "@latchkey/drizzle-store/d1";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";

export const BASE_URL = "https://workers.example";
// wrangler's local D1 for a binding without database_id: the id is the binding name, the files in .wrangler/state/v3/d1.
const D1 = { databases: { DB: "DB" } };
export let bundle: WorkerBundle;
let persist: string;
export let worker: RunningWorker;
export let other: RunningWorker;
export let unconfigured: RunningWorker;
// A real OpenID provider (panva's oidc-provider) on a loopback port of this process: workerd reaches it by fetch.
export let idp: TestOidcProvider;
export const outbox: Array<{ to: string; text: string }> = [];
const capture = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on("end", () => {
    outbox.push(JSON.parse(body) as { to: string; text: string });
    res.writeHead(204).end();
  });
});

// Cloudflare's edge sets cf-connecting-ip; the tests play the edge, in front of either instance.
export const edgeOf =
  (target: () => RunningWorker) =>
  (request: Request, ip = "203.0.113.9") => {
    const headers = new Headers(request.headers);
    headers.set("cf-connecting-ip", request.headers.get("x-e2e-ip") ?? ip);
    return target().fetch(new Request(request, { headers }));
  };
export const viaEdge = edgeOf(() => worker);

/**
 * Starts this file's instances over one new D1: `worker` (which migrates it), `other` with `other: true` (a second
 * instance over the same D1), `unconfigured` with `unconfigured: true` (a deploy that forgot LATCHKEY_BASE_URL).
 */
export function setUpWorkers(options: { other?: boolean; unconfigured?: boolean }): void {
  // The instances this file started, disposed after it (in start order).
  const started: RunningWorker[] = [];
  const start = async (bindings: Record<string, string>) => {
    const instance = await startWorker(bundle.code, bindings, { d1: { ...D1, persist } });
    started.push(instance);
    return instance;
  };
  beforeAll(async () => {
    bundle = inject("workerBundle");
    await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
    const address = capture.address();
    idp = await startTestOidcProvider([`${BASE_URL}/auth/callback/oidc`]);
    const bindings = {
      LATCHKEY_SECRET: "w".repeat(64),
      LATCHKEY_BASE_URL: BASE_URL,
      EMAIL_WEBHOOK_URL: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/emails`,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
    };
    // One D1 on disk, as `wrangler dev` keeps it; two workerd processes (two Miniflare instances) open it.
    persist = mkdtempSync(join(tmpdir(), "latchkey-d1-"));
    worker = await start(bindings);
    expect(await migrateD1Database(await worker.d1("DB"), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite))).toEqual([
      "0000_initial",
      "0001_api_key_lifecycle",
      "0002_session_remember_me",
      "0003_app_metadata",
      "0004_counters_reset_at_index",
      "0005_partial_nullable_indexes",
      "0006_two_factor",
      "0007_social_accounts",
      "0008_passkeys",
      "0009_admin",
      "0010_organizations",
      "0011_impersonation_index",
      "0012_organization_api_keys",
    ]);
    if (options.other) other = await start(bindings);
    // A deploy that forgot LATCHKEY_BASE_URL.
    const { LATCHKEY_BASE_URL: _, ...unpinned } = bindings;
    if (options.unconfigured) unconfigured = await start(unpinned);
  });

  afterAll(async () => {
    for (const instance of started.splice(0)) await instance.dispose();
    await new Promise((resolve) => capture.close(resolve));
    await idp?.close();
    if (persist) rmSync(persist, { recursive: true, force: true });
  });
}

// The two-instance suites' requests (worker-two-factor.test.ts, worker-sessions.test.ts).
export const viaA = edgeOf(() => worker);
export const viaB = edgeOf(() => other);
export const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", origin: BASE_URL },
  body: JSON.stringify(body),
});
export const signUp = async (email: string, ip: string) => {
  const res = await viaA(
    new Request(`${BASE_URL}/auth/sign-up/email`, json({ email, password: "correct horse battery" })),
    ip,
  );
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
};
export const signIn = (via: typeof viaA, email: string, password: string, ip: string) =>
  via(new Request(`${BASE_URL}/auth/sign-in/email`, json({ email, password })), ip);
export async function codeSentTo(email: string): Promise<string> {
  // The worker mails in the background (ctx.waitUntil): wait for the webhook, a bounded number of turns.
  for (let turn = 0; turn < 200; turn++) {
    const code = outbox.findLast((m) => m.to === email)?.text.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no code reached the webhook for ${email}`);
}
