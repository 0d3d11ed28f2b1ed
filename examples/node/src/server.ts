import { serve } from "@hono/node-server";
import { generateDevSecret } from "./dev-secret.ts";
import { createDemoApp, type DemoSocialProvider } from "./app.ts";
import { DEMO_PROVIDER_ID, DEMO_PROVIDER_NAME, type DemoProvider, startDemoProvider } from "./demo-provider.ts";
import { DEFAULT_DEMO_DATABASE, openDemoDatabase } from "./database.ts";
import { webPages } from "./static.ts";

// The example reads its environment; the library never does.
const port = Number(process.env.PORT ?? 3000);
const baseUrl = process.env.LATCHKEY_BASE_URL ?? `http://localhost:${port}`;
const secret = process.env.LATCHKEY_SECRET ?? generateDevSecret();
const databaseUrl = process.env.LATCHKEY_DATABASE_URL ?? DEFAULT_DEMO_DATABASE;

const database = await openDemoDatabase(databaseUrl, (line) => console.log(`[migrate] ${line}`));
// Pages on other origins (a Vite dev server, another app) that may call the API with the session cookie.
const trustedOrigins = (process.env.LATCHKEY_TRUSTED_ORIGINS ?? "")
  .split(",")
  .map((o) => o.trim())
  .filter(Boolean);

// "Sign in with Example ID": a local OpenID provider beside the app, on the next port (LATCHKEY_DEMO_PROVIDER_PORT;
// `off` leaves it out). Only for an app on http://localhost or 127.0.0.1: a real deployment uses a real provider.
const host = process.env.HOST ?? "127.0.0.1";
let demoProvider: DemoProvider | null = null;
let socialProvider: DemoSocialProvider | undefined;
const providerPort = process.env.LATCHKEY_DEMO_PROVIDER_PORT ?? String(port + 1);
const appUrl = new URL(baseUrl);
if (providerPort !== "off" && appUrl.protocol === "http:" && ["localhost", "127.0.0.1"].includes(appUrl.hostname)) {
  try {
    demoProvider = await startDemoProvider({
      port: Number(providerPort),
      hostname: appUrl.hostname,
      listenHost: host,
      redirectUri: `${appUrl.origin}/auth/callback/${DEMO_PROVIDER_ID}`,
    });
    const { issuer, clientId, clientSecret } = demoProvider;
    socialProvider = { id: DEMO_PROVIDER_ID, name: DEMO_PROVIDER_NAME, issuer, clientId, clientSecret };
  } catch (error) {
    // A taken port costs the demo its social sign-in, never its start.
    console.warn(`${DEMO_PROVIDER_NAME} (the demo's OpenID provider) did not start: ${(error as Error).message}`);
  }
}

const { app, auth } = createDemoApp({
  secret,
  database,
  baseUrl,
  ...(socialProvider ? { socialProvider } : {}),
  ...(trustedOrigins.length ? { trustedOrigins, cors: true } : {}),
});
// The web app (examples/node/web, built by Vite): every page not taken by the API.
app.get("*", webPages());

const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
  console.log(`Latchkey demo listening on http://localhost:${info.port} (the web app; API at /auth)`);
  console.log(`API explorer: http://localhost:${info.port}/auth/reference`);
  if (demoProvider)
    console.log(
      `${DEMO_PROVIDER_NAME} (a local OpenID provider for "Sign in with ${DEMO_PROVIDER_NAME}"): ${demoProvider.issuer}`,
    );
  console.log(`Store: ${database.kind}`);
});

// Shutdown (a deploy, `docker stop`, Ctrl-C): stop taking connections, let the requests in flight finish, then
// drain the database connections and exit.
let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: closing`);
  server.close(() => {
    void Promise.all([auth.close(), demoProvider?.close()]).then(
      () => {
        console.log("Latchkey demo stopped");
        process.exit(0);
      },
      (error: unknown) => {
        console.error("closing the database failed", error);
        process.exit(1);
      },
    );
  });
};
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
