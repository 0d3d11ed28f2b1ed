// `pnpm start`: Express 5 with Latchkey at /auth. PORT=0 picks a free port (printed).
import { randomString, webCryptoRandom } from "@latchkey/core";
import { createApp, createExampleAuth } from "./app.ts";

// The example reads its environment; the library never does.
const port = Number(process.env.PORT ?? 3000);
const secret = process.env.LATCHKEY_SECRET ?? randomString(webCryptoRandom, 64);
if (!process.env.LATCHKEY_SECRET) console.warn("LATCHKEY_SECRET is not set: using a random secret for this run.");
const auth = createExampleAuth({ secret, baseUrl: process.env.LATCHKEY_BASE_URL ?? `http://localhost:${port}` });

const server = createApp(auth).listen(port, process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  console.log(`Latchkey on Express listening on http://localhost:${bound}`);
});

// Shutdown: stop listening, let the requests in flight finish, release the store's connections, exit.
process.once("SIGTERM", () => {
  server.close(() => void auth.close().then(() => process.exit(0)));
});
