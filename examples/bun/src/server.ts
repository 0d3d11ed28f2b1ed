// `bun run src/server.ts` (pnpm start): the bun binary comes from npm (devDependency).
import { createExampleAuth } from "./auth.ts";
import { readSettings, SettingsError } from "./settings.ts";

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

// The example reads its environment; the library never does. Production (any NODE_ENV but "development") refuses
// to start without what it needs, naming it.
const port = Number(Bun.env.PORT ?? 3000);
let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings((name) => Bun.env[name], port);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
for (const note of settings.notes) console.warn(note);
const auth = createExampleAuth(settings);

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
