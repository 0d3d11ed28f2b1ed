import { apiKeys, argon2idHasher, emailOtp, jwt, webCryptoRandom, type Clock } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

// For the typed client's tests (src/client.test.ts, src/session-store.test.ts, src/retry-503.test.ts): a real
// Latchkey handler on the memory store, which the client calls in-process.

export const BASE = "https://app.example";

export function server(clock?: Clock) {
  const store = memoryStore();
  const auth = createAuth({
    ...(clock ? { clock } : {}),
    secret: "client-test-0123456789abcdefghijklmnopqrstuvwxyz",
    baseUrl: BASE,
    database: store,
    captureOtp: true,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    email: { sender: { async send() {} } },
    // In-process calls carry no socket: name the client's address, as a host app behind its proxy would.
    getClientIp: (request) => request.headers.get("x-test-ip") ?? "192.0.2.10",
    plugins: [emailOtp(), jwt(), apiKeys()],
  });
  return { auth, store };
}
