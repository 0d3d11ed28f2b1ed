import { createServer, type Server } from "node:http";
import { hostJourney } from "@latchkey/test-support/host-journey";
import { afterAll, beforeAll } from "vitest";
import { createApp, createExampleAuth } from "./app.ts";

// Fastify 5 over real HTTP: Latchkey's routes at /auth through the Node request listener, the app's own JSON
// routes beside them, and a router guarded by requireUser (cookie or Bearer).
let server: Server;
let base = "";
let auth: ReturnType<typeof createExampleAuth>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  // Port 0: the kernel picks the port; the auth's baseUrl is built from it before the first request.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  auth = createExampleAuth({ secret: "e".repeat(64), baseUrl: base, environment: "development" });
  app = createApp(auth, {
    serverFactory: (handler) => {
      server.on("request", handler);
      return server;
    },
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await auth.close();
});

hostJourney(
  "Fastify 5",
  "fastify.example",
  { base: () => base, auth: () => auth },
  {
    root: { app: "fastify example", auth: "/auth" },
  },
);
