// `deno run --allow-net --allow-read --allow-env src/server.ts` (pnpm start): deno comes from npm (devDependency).
import { createExampleAuth } from "./auth.ts";
import { readSettings, SettingsError } from "./settings.ts";

interface ServeHandlerInfo {
  remoteAddr: { hostname: string; port: number };
}
declare const Deno: {
  env: { get(name: string): string | undefined };
  addSignalListener(signal: "SIGTERM" | "SIGINT", handler: () => void): void;
  exit(code: number): never;
  serve(
    options: { port: number; hostname: string; onListen(local: { port: number }): void },
    handler: (request: Request, info: ServeHandlerInfo) => Promise<Response>,
  ): { shutdown(): Promise<void> };
};

// The example reads its environment; the library never does. Production (any NODE_ENV but "development") refuses
// to start without what it needs, naming it.
const port = Number(Deno.env.get("PORT") ?? 3000);
let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings((name) => Deno.env.get(name), port);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  Deno.exit(1);
}
for (const note of settings.notes) console.warn(note);
const auth = createExampleAuth(settings);

const server = Deno.serve(
  {
    port,
    hostname: Deno.env.get("HOST") ?? "127.0.0.1",
    onListen: (local) => {
      console.log(`Latchkey on Deno listening on http://localhost:${local.port}`);
      console.log(`API explorer: http://localhost:${local.port}/auth/reference`);
    },
  },
  (request, info) => auth.handler(request, info),
); // info.remoteAddr feeds clientIp.fromSocket

// Shutdown: stop listening, let the requests in flight finish, release the store's connections, exit.
Deno.addSignalListener("SIGTERM", () => {
  void server
    .shutdown()
    .then(() => auth.close())
    .then(() => Deno.exit(0));
});
