import { argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { createLatchkeyClient, type LatchkeyClient } from "../src/index.ts";

const BASE = "https://app.example";

/**
 * For the framework bindings' tests: a real Latchkey handler on the memory store, a bearer client calling it
 * in-process, and the same client's session store behind a wrapper that counts its listeners and the requests.
 */
export function countedClient() {
  const store = memoryStore();
  const auth = createAuth({
    secret: "client-bindings-0123456789abcdefghijklmnopqrstuvwxyz",
    baseUrl: BASE,
    database: store,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    getClientIp: () => "192.0.2.20",
  });
  let requests = 0;
  const client = createLatchkeyClient({
    baseURL: `${BASE}/auth`,
    auth: "bearer",
    fetch: (r) => {
      requests++;
      return auth.handler(r);
    },
  });
  let listening = 0;
  const counted: Pick<LatchkeyClient, "session"> = {
    session: {
      ...client.session,
      subscribe(listener) {
        listening++;
        const off = client.session.subscribe(listener);
        return () => {
          listening--;
          off();
        };
      },
    },
  };
  return { store, client, counted, listening: () => listening, requests: () => requests };
}
