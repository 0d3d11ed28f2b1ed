import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { oauth, oidc } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { betterAuth } from "better-auth";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { betterAuthDatabase, betterAuthPlugins } from "../servers/better-auth-db.ts";
import { type BenchOidcProvider, startBenchOidcProvider } from "../servers/oidc-provider.ts";
import { BENCH_CLIENT_ID, BENCH_CLIENT_SECRET, BENCH_PROVIDER_ID, CALLBACK_PATH } from "../servers/social-client.ts";
import { deliverCallback, signedInByCallback, signInSubjects, socialFlows, subjectOf } from "./social.ts";

// The `social-callback` scenarios' flows against the bench's own provider and both libraries as the servers configure
// them: each pooled flow's callback signs its subject in once (a redirect to the success path with a session
// cookie), and delivered again it is refused, so a window counts only callbacks that did the whole sign-in.
const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";

/** A server on a free loopback port whose handler is set once the port (the library's base URL) is known. */
async function listen(): Promise<{
  server: ServerType;
  baseUrl: string;
  handle(fetch: (r: Request) => Response | Promise<Response>): void;
}> {
  let handler: (request: Request) => Response | Promise<Response> = () => new Response("not ready", { status: 503 });
  const server = serve({ fetch: (request) => handler(request), port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    handle(fetch) {
      handler = fetch;
    },
  };
}

let provider: BenchOidcProvider;
let latchkey: Awaited<ReturnType<typeof listen>>;
let better: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  latchkey = await listen();
  better = await listen();
  provider = await startBenchOidcProvider(0, [
    `${latchkey.baseUrl}${CALLBACK_PATH}`,
    `${better.baseUrl}${CALLBACK_PATH}`,
  ]);
  const auth = createAuth({
    secret: SECRET,
    database: memoryStore(),
    baseUrl: latchkey.baseUrl,
    rateLimit: { enabled: false },
    plugins: [
      oauth({
        providers: [
          oidc({
            id: BENCH_PROVIDER_ID,
            issuer: provider.issuer,
            clientId: BENCH_CLIENT_ID,
            clientSecret: BENCH_CLIENT_SECRET,
          }),
        ],
      }),
    ],
  });
  const app = new Hono();
  app.use("*", auth.middleware);
  app.route("/auth", auth.app);
  latchkey.handle(app.fetch);
  const options = {
    secret: SECRET,
    baseURL: better.baseUrl,
    basePath: "/auth",
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // The refused replays below are logged as errors by Better Auth: quiet here.
    logger: { disabled: true },
    plugins: betterAuthPlugins(false, () => undefined, null, { issuer: provider.issuer }),
  };
  const db = await betterAuthDatabase({ kind: "memory" }, options);
  const ba = betterAuth({ ...options, database: db.database });
  better.handle((request) => ba.handler(request));
});
afterAll(async () => {
  for (const side of [latchkey, better]) await new Promise((resolve) => side.server.close(resolve));
  await provider.close();
});

describe.each([
  ["Latchkey", () => latchkey.baseUrl],
  ["Better Auth (genericOAuth)", () => better.baseUrl],
])("the social flows of %s", (_name, baseUrl) => {
  it("signs every subject in once, then each pooled callback signs its returning user in once", async () => {
    await signInSubjects(baseUrl(), 2);
    const flows = await socialFlows(baseUrl(), 4, 2, { concurrency: 2 });
    expect(flows).toHaveLength(4);
    // A fresh code and state per flow, each with the state cookie of the browser that started it.
    expect(new Set(flows.map((f) => new URL(f.path ?? "", "http://x").searchParams.get("code"))).size).toBe(4);
    expect(new Set(flows.map((f) => f.credential)).size).toBe(4);
    for (const flow of flows) {
      const first = await deliverCallback(baseUrl(), flow);
      expect(signedInByCallback(first.status, first.headers), JSON.stringify(first)).toBe(true);
      // Spent: the state (and the code) cannot sign in again.
      const again = await deliverCallback(baseUrl(), flow);
      expect(again.status).toBe(302);
      expect(signedInByCallback(again.status, again.headers)).toBe(false);
    }
  });

  it("does not count a callback that carries another browser's state cookie", async () => {
    const [mine, theirs] = await socialFlows(baseUrl(), 2, 2);
    const crossed = await deliverCallback(baseUrl(), { credential: theirs?.credential ?? "", path: mine?.path ?? "" });
    expect(signedInByCallback(crossed.status, crossed.headers)).toBe(false);
  });
});

describe("what counts as a signed-in callback", () => {
  const cookie = "latchkey.session=abc; Path=/; HttpOnly";
  it("a redirect to the success path that sets a session cookie", () => {
    expect(signedInByCallback(302, { location: "http://127.0.0.1:1/done", "set-cookie": [cookie] })).toBe(true);
    expect(signedInByCallback(302, { Location: "/done", "Set-Cookie": "better-auth.session_token=x.y; Path=/" })).toBe(
      true,
    );
  });
  it("not an error redirect, another status, or a cleared or missing session cookie", () => {
    expect(signedInByCallback(302, { location: "/done?error=OAUTH_STATE_MISMATCH", "set-cookie": [cookie] })).toBe(
      false,
    );
    expect(signedInByCallback(302, { location: "/error?error=state_mismatch", "set-cookie": [cookie] })).toBe(false);
    expect(signedInByCallback(200, { location: "/done", "set-cookie": [cookie] })).toBe(false);
    expect(signedInByCallback(302, { location: "/done", "set-cookie": ["latchkey.session=; Max-Age=0"] })).toBe(false);
    expect(signedInByCallback(302, { location: "/done" })).toBe(false);
  });
  it("subjects are taken in turn", () => {
    expect([0, 1, 2, 3].map((i) => subjectOf(i, 3))).toEqual([
      "social-user-0",
      "social-user-1",
      "social-user-2",
      "social-user-0",
    ]);
  });
});
