import { serve } from "@hono/node-server";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

// One Latchkey server for the hash-cap scenario: memory store, default argon2id (native), per-IP limits off so
// only the hash cap differs. `HASH_CAP=off` lifts the cap (what every release before issue 33 did); `on` keeps
// the defaults (thread-pool concurrency, a queue of 32, the shared budget of unauthenticated hashing routes).
const port = Number(process.env.BENCH_PORT);
const capped = process.env.HASH_CAP !== "off";
const auth = createAuth({
  secret: "bench-secret-0123456789abcdef0123456789abcdef",
  database: memoryStore(),
  baseUrl: `http://127.0.0.1:${port}`,
  environment: "production",
  email: { sender: { send: async () => undefined } },
  rateLimit: { enabled: false },
  lockout: { enabled: false },
  ...(capped ? {} : { passwordHashing: { concurrency: 1024, maxQueue: 100_000, unauthenticatedBudget: false } }),
});
const signedUp = await auth.api.signUp({ email: "reader@example.com", password: "bench password 1" });
const token = "credentials" in signedUp ? signedUp.credentials.token : "";
// The browser that signed up is a known device of the account (the device-flood scenario signs in with it).
const device = "device" in signedUp ? (signedUp.device?.token ?? null) : null;
serve({ fetch: auth.handler, port, hostname: "127.0.0.1" }, () => {
  process.stdout.write(
    `${JSON.stringify({ ready: true, token, device, concurrency: auth.core.config.passwordHashing })}\n`,
  );
});
