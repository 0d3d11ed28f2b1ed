// `bun run src/server.ts` (pnpm start): the bun binary comes from npm (devDependency).
import { randomString, webCryptoRandom } from "@latchkey/core";
import { createExampleAuth } from "./auth.ts";

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): Promise<void>;
  requestIP(request: Request): { address: string } | null;
}
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Promise<Response>;
  }): BunServer;
};

// The example reads its environment; the library never does.
const port = Number(Bun.env.PORT ?? 3000);
const secret = Bun.env.LATCHKEY_SECRET ?? randomString(webCryptoRandom, 64);
if (!Bun.env.LATCHKEY_SECRET) console.warn("LATCHKEY_SECRET is not set: using a random secret for this run.");
const auth = createExampleAuth({ secret, baseUrl: Bun.env.LATCHKEY_BASE_URL ?? `http://localhost:${port}` });

const server = Bun.serve({
  port,
  hostname: Bun.env.HOST ?? "127.0.0.1",
  // The server goes in as env: clientIp.fromSocket asks it for the peer address (rate limits).
  fetch: (request, server) => auth.handler(request, { server }),
});
console.log(`Latchkey on Bun listening on http://localhost:${server.port}`);
console.log(`API explorer: http://localhost:${server.port}/auth/reference`);

// Shutdown: stop listening, let the requests in flight finish, release the store's connections, exit.
process.once("SIGTERM", () => {
  void server
    .stop()
    .then(() => auth.close())
    .then(() => process.exit(0));
});
