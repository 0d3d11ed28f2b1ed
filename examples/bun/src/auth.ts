import { createAuth, type Auth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

/**
 * The example's auth: standalone handler under /auth, memory store (demo only: gone on restart).
 * The default `clientIp.fromSocket` reads the peer address Bun passes as `{ server }`.
 */
export function createExampleAuth(options: { secret: string; baseUrl: string }): Auth {
  const local = options.baseUrl.startsWith("http://");
  return createAuth({
    secret: options.secret,
    baseUrl: options.baseUrl,
    basePath: "/auth",
    database: memoryStore(),
    // Plain-HTTP localhost needs development mode for non-Secure cookies; behind https keep the defaults.
    ...(local ? { environment: "development" as const, cookies: { secure: false } } : {}),
  });
}
