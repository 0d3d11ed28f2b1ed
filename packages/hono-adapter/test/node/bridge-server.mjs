// A plain Node HTTP server serving Latchkey through `toNodeHandler` (the bridge Express and Fastify use), run as a
// child process by `src/node/node-handler.test.ts` so that its memory is its own: it loads the BUILT packages.
// Tells the parent its port over IPC, and answers "memory" with its peak and current resident set in bytes.
import { createServer } from "node:http";
import { createAuth } from "@latchkey/hono-adapter";
import { toNodeHandler } from "@latchkey/hono-adapter/node";
import { memoryStore } from "@latchkey/memory-store";

const server = createServer();
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const auth = createAuth({
    secret: "bridge-memory-secret-0123456789abcdefghijklmnop",
    baseUrl: `http://127.0.0.1:${port}`,
    database: memoryStore(),
    rateLimit: { enabled: false },
  });
  server.on("request", toNodeHandler(auth));
  process.on("message", (message) => {
    if (message === "memory")
      process.send({ peak: process.resourceUsage().maxRSS * 1024, current: process.memoryUsage.rss() });
  });
  process.send({ port });
});
process.on("disconnect", () => process.exit(0));
