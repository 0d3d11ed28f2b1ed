import { serve } from "@hono/node-server";
import { generateDevSecret } from "./dev-secret.ts";
import { createDemoApp } from "./app.ts";
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
const { app, auth } = createDemoApp({
  secret,
  database,
  baseUrl,
  ...(trustedOrigins.length ? { trustedOrigins, cors: true } : {}),
});
// The web app (examples/node/web, built by Vite): every page not taken by the API.
app.get("*", webPages());

const server = serve({ fetch: app.fetch, port, hostname: process.env.HOST ?? "127.0.0.1" }, (info) => {
  console.log(`Latchkey demo listening on http://localhost:${info.port} (the web app; API at /auth)`);
  console.log(`API explorer: http://localhost:${info.port}/auth/reference`);
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
    void auth.close().then(
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
