import { createServer, type Server } from "node:http";
import { hostJourney } from "@latchkey/test-support/host-journey";
import { afterAll, beforeAll } from "vitest";
import { createApp, createExampleAuth } from "./app.ts";

// Express 5 over real HTTP: Latchkey's routes at /auth through the Node request listener, the app's own JSON
// routes beside them, and a router guarded by requireUser (cookie or Bearer).
let server: Server;
let base = "";
let auth: ReturnType<typeof createExampleAuth>;

beforeAll(async () => {
  // Port 0: the kernel picks the port; the auth's baseUrl is built from it before the first request.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  auth = createExampleAuth({ secret: "e".repeat(64), baseUrl: base, environment: "development" });
  server.on("request", createApp(auth));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await auth.close();
});

hostJourney(
  "Express 5",
  "express.example",
  { base: () => base, auth: () => auth },
  {
    root: { app: "express example", auth: "/auth" },
  },
);
