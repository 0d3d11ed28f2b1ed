import { readServerEnv, runServer } from "./shell.ts";

// The floor: a plain Hono JSON route on the same HTTP server, no auth. Nothing on this machine answers faster
// through @hono/node-server, so every auth route is measured against it.
const env = readServerEnv();
runServer(
  env,
  (app) => {
    app.get("/hello", (c) => c.json({ hello: "world" }));
  },
  null,
);
