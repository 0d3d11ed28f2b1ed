// The memory the lookup cache (`createAuth({ cache })`) takes per 10,000 entries: sessions (session + user, as a
// get-session keeps them) and API keys (key + owner, as a verify keeps them). The store is the memory store; the records are
// the same shape on every store. Heap after a full collection, before and after the cache was filled.
// `node --expose-gc --import tsx src/micro/cache-memory.ts [--n=10000] [--kind=sessions|keys]`
import { apiKeys, hashSecret, webCryptoRandom } from "@latchkey/core";
import { randomToken } from "@latchkey/core/internal";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const store = memoryStore();
// A SQL store returns fresh rows on every read; the memory store may hand out its own objects, which the cache
// would then share with it (and the delta would miss them). Fresh copies, as from a database:
const fresh = <T>(value: T): T => structuredClone(value);
const database = {
  ...store,
  sessions: {
    ...store.sessions,
    findByTokenHash: async (hash: string) => fresh(await store.sessions.findByTokenHash(hash)),
  },
  apiKeys: {
    ...store.apiKeys,
    findByHashWithOwner: async (hash: string) => fresh(await store.apiKeys.findByHashWithOwner(hash)),
  },
};
const auth = createAuth({
  secret: "bench-secret-0123456789abcdefghijklmnop",
  baseUrl: "http://localhost",
  database,
  rateLimit: { enabled: false },
  plugins: [apiKeys()],
  cache: { maxEntries: n * 2 },
});
const cached = auth.core.ctx.store;
const now = new Date();
const sessionHashes: string[] = [];
const keyHashes: string[] = [];
for (let i = 0; i < n; i++) {
  const userId = `user-${i}`;
  await store.users.create(
    {
      id: userId,
      email: `user-${i}@example.com`,
      emailVerified: true,
      name: `User ${i}`,
      image: null,
      username: null,
      metadata: {},
      appMetadata: { plan: "pro" },
      createdAt: now,
      updatedAt: now,
      banned: false,
      banReason: null,
      banExpires: null,
    },
    [],
  );
  const tokenHash = hashSecret(randomToken(webCryptoRandom, 32));
  await store.sessions.create({
    id: `session-${i}`,
    userId,
    tokenHash,
    expiresAt: new Date(now.getTime() + 86_400_000),
    createdAt: now,
    updatedAt: now,
    ip: "203.0.113.7",
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
    rememberMe: true,
    impersonatedBy: null,
  });
  sessionHashes.push(tokenHash);
  const key = await auth.api.createApiKey({ userId, name: "service" });
  keyHashes.push(hashSecret(key.key));
}

const heap = async () => {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
  }
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
const scale = 10_000 / n;

// One kind per process (`--kind=sessions|keys`): the setup's garbage is collected before the first reading.
const kind = args.get("kind") ?? "sessions";
const before = await heap();
if (kind === "keys") for (const hash of keyHashes) await cached.apiKeys?.findByHashWithOwner(hash);
else for (const hash of sessionHashes) await cached.sessions.findByTokenHash(hash);
const after = await heap();
console.log(`${n} ${kind} entries: ${mib((after - before) * scale)} per 10,000`);
await auth.close();
