// `pnpm start`: Fastify 5 with Latchkey at /auth. PORT=0 picks a free port (printed).
import { randomString, webCryptoRandom } from "@latchkey/core";
import { createApp, createExampleAuth } from "./app.ts";

// The example reads its environment; the library never does.
const port = Number(process.env.PORT ?? 3000);
const secret = process.env.LATCHKEY_SECRET ?? randomString(webCryptoRandom, 64);
if (!process.env.LATCHKEY_SECRET) console.warn("LATCHKEY_SECRET is not set: using a random secret for this run.");
const auth = createExampleAuth({ secret, baseUrl: process.env.LATCHKEY_BASE_URL ?? `http://localhost:${port}` });
const app = createApp(auth);

const address = await app.listen({ port, host: process.env.HOST ?? "127.0.0.1" });
console.log(`Latchkey on Fastify listening on ${address.replace("127.0.0.1", "localhost")}`);

// Shutdown: stop listening, let the requests in flight finish, release the store's connections, exit.
process.once("SIGTERM", () => {
  void app
    .close()
    .then(() => auth.close())
    .then(() => process.exit(0));
});
