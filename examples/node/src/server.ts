import { serve } from "@hono/node-server";
import { memoryStore } from "@latchkey/memory-store";
import { generateDevSecret } from "./dev-secret.ts";
import { createDemoApp } from "./app.ts";

// The example reads its environment; the library never does.
const port = Number(process.env.PORT ?? 3000);
const baseUrl = process.env.LATCHKEY_BASE_URL ?? `http://localhost:${port}`;
const secret = process.env.LATCHKEY_SECRET ?? generateDevSecret();

const { app } = createDemoApp({ secret, database: memoryStore(), baseUrl });

serve({ fetch: app.fetch, port, hostname: process.env.HOST ?? "127.0.0.1" }, (info) => {
  console.log(`Latchkey demo listening on http://localhost:${info.port}`);
  console.log(`API explorer: http://localhost:${info.port}/auth/reference`);
});
