// `deno run --allow-net --allow-read --allow-env src/server.ts` (pnpm start): deno comes from npm (devDependency).
import { randomString, webCryptoRandom } from "@latchkey/core";
import { createExampleAuth } from "./auth.ts";

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

// The example reads its environment; the library never does.
const port = Number(Deno.env.get("PORT") ?? 3000);
const secret = Deno.env.get("LATCHKEY_SECRET") ?? randomString(webCryptoRandom, 64);
if (!Deno.env.get("LATCHKEY_SECRET")) console.warn("LATCHKEY_SECRET is not set: using a random secret for this run.");
const auth = createExampleAuth({ secret, baseUrl: Deno.env.get("LATCHKEY_BASE_URL") ?? `http://localhost:${port}` });

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
