import { createAuth, type Auth, type GetClientIp } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

/**
 * The example's auth: standalone handler under /auth, memory store (demo only: gone on restart).
 * The default `clientIp.fromSocket` reads the peer address `Deno.serve` passes as its handler info (`remoteAddr`).
 */
export function createExampleAuth(options: {
  secret: string;
  baseUrl: string;
  environment: "production" | "development";
  getClientIp?: GetClientIp;
}): Auth {
  // Development is the caller's explicit choice (NODE_ENV=development), never inferred from the URL; only there may
  // an http:// localhost get cookies without Secure.
  const plainHttp = options.environment === "development" && options.baseUrl.startsWith("http://");
  return createAuth({
    secret: options.secret,
    baseUrl: options.baseUrl,
    basePath: "/auth",
    database: memoryStore(),
    environment: options.environment,
    ...(options.getClientIp ? { getClientIp: options.getClientIp } : {}),
    ...(plainHttp ? { cookies: { secure: false } } : {}),
  });
}
