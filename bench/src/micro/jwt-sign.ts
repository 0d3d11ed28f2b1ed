// Micro-benchmark: µs per JWT signature through the JwtService (what get-session's set-auth-jwt and /token pay).
// `node --import tsx src/micro/jwt-sign.ts [--n=20000] [--alg=EdDSA,ES256]`; add `--conditions=browser` to force
// the Web Crypto signer (the "browser" condition comes before "node" in core's `#native-jws` import map).
import { createAuthCore, jwt, JWT_PLUGIN_ID, type JwsAlgorithm } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 20_000);
const algs = (args.get("alg") ?? "EdDSA,ES256,RS256,PS256").split(",") as JwsAlgorithm[];

const now = new Date().toISOString();
const context = {
  user: {
    id: "user-0123456789",
    email: "ada@example.com",
    emailVerified: true,
    name: "Ada",
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: now,
    updatedAt: now,
    banned: false,
    banReason: null,
    banExpires: null,
  },
  session: {
    id: "session-0123456789",
    userId: "user-0123456789",
    expiresAt: now,
    createdAt: now,
    updatedAt: now,
    ip: null,
    userAgent: null,
  },
};

for (const alg of algs) {
  const core = createAuthCore({
    secret: "bench-secret-0123456789abcdefghijklmnop",
    database: memoryStore(),
    baseUrl: "https://app.example",
    plugins: [jwt({ alg })],
  });
  const service = core.plugins.get(JWT_PLUGIN_ID)!.service;
  for (let i = 0; i < Math.min(2_000, n); i++) await service.sign(context); // key creation + JIT warm-up
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await service.sign(context);
  const wallUs = Number(process.hrtime.bigint() - start) / 1000 / n;
  const used = process.cpuUsage(cpu);
  const cpuUs = (used.user + used.system) / n;
  console.log(`${alg.padEnd(6)} n=${n}  wall ${wallUs.toFixed(1)} µs/op  cpu ${cpuUs.toFixed(1)} µs/op`);
}
