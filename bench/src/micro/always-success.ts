// Side by side: the "always success" endpoints (request-password-reset, send-verification-email, OTP send) for a
// registered and an unknown address, through `auth.handler` (in process) on a libSQL file with auditLog() and
// emailOtp(). Calls alternate registered / unknown so a noisy neighbour slows both alike; prints the median of each
// (review fix 8: the two should match; before it, registered addresses did extra store writes). Then a wrong-password
// sign-in (known / unknown address) and a sign-up with `requireVerifiedForSignIn` (taken / new address), with a
// cheap argon2id so the hash does not drown the store work (issue 50 item 4, issue 48 item 15). The email send
// limits are off: they do the same work for both (hono-adapter/src/http/always-success-work.test.ts counts it), and
// with them on the registered address would be refused after 5 sends.
// `node --import tsx src/micro/always-success.ts [--n=300]`
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { argon2idHasher, auditLog, emailOtp, webCryptoRandom } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/sqlite";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const n = Number(args.get("n") ?? 300);

const url = `file:${join(await mkdtemp(join(tmpdir(), "latchkey-always-success-")), "bench.db")}`;
await migrateDatabase(url);
const auth = createAuth({
  secret: "bench-secret-0123456789abcdefghijklmnop",
  baseUrl: "http://localhost",
  environment: "development",
  cookies: { secure: false },
  database: drizzleStore({ url }),
  rateLimit: { enabled: false },
  lockout: { enabled: false },
  passwordHashing: { unauthenticatedBudget: false },
  passwordHasher: argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } }),
  emailVerification: { requireVerifiedForSignIn: true },
  email: { sender: { async send() {} }, perRecipient: false, resendCooldown: false, recipientCap: false },
  plugins: [emailOtp(), auditLog()],
});
const post = (path: string, body: unknown) =>
  auth.handler(
    new Request(`http://localhost/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
await post("/sign-up/email", { email: "ada@example.com", password: "correct horse battery" });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const endpoints: Array<[string, (email: string) => unknown, number]> = [
  ["/request-password-reset", (email) => ({ email }), 200],
  ["/send-verification-email", (email) => ({ email }), 200],
  ["/email-otp/send-verification-otp", (email) => ({ email, purpose: "password-reset" }), 200],
  ["/sign-in/email", (email) => ({ email, password: "not the password" }), 401],
  ["/sign-up/email", (email) => ({ email, password: "another long passphrase" }), 200],
];
for (const [path, body, status] of endpoints) {
  const times = { registered: [] as number[], unknown: [] as number[] };
  for (let i = 0; i < n; i++) {
    for (const [kind, email] of [
      ["registered", "ada@example.com"],
      ["unknown", `nobody${i}@example.com`],
    ] as const) {
      const start = performance.now();
      const res = await post(path, body(email));
      times[kind].push(performance.now() - start);
      if (res.status !== status) throw new Error(`${path} answered ${res.status}`);
    }
  }
  const [r, u] = [median(times.registered), median(times.unknown)];
  console.log(
    `${path.padEnd(34)} registered ${r.toFixed(3)} ms   unknown ${u.toFixed(3)} ms   difference ${(r - u).toFixed(3)} ms`,
  );
}
await auth.close();
