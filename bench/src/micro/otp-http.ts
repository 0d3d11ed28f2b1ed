// The bench's Latchkey server (src/servers/latchkey.ts) over HTTP for the OTP round trip only, without autocannon:
// a keep-alive client in this process sends the code, reads it (the server's private route) and signs in with it,
// for a new email each time, `--concurrency` round trips in flight; the server's CPU (all its threads, from
// /proc/<pid>/stat) over `--seconds` after `--warmup` seconds, per round trip. A quick loop for A/B comparisons of
// two builds of the packages (each run a fresh server and database); the bench's `otp-round-trip` scenario is the
// measurement of record. `--sends-only` leaves the sign-in out (send and read only). The bench server runs with
// Latchkey's email send limits off, as the bench does; `--send-limits` turns them on (Latchkey's defaults, the
// `send-limits` rows).
//   node --import tsx src/micro/otp-http.ts [--store=libsql|memory] [--seconds=20] [--warmup=5] [--concurrency=32]
//     [--sends-only] [--send-limits]
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../harness/process.ts";

const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const store = option("store", "libsql");
if (store !== "libsql" && store !== "memory") throw new Error("--store is libsql or memory");
const seconds = Number(option("seconds", "20"));
const warmup = Number(option("warmup", "5"));
const concurrency = Number(option("concurrency", "32"));
const sendsOnly = process.argv.includes("--sends-only");
const sendLimits = process.argv.includes("--send-limits");

const dir = mkdtempSync(join(tmpdir(), "latchkey-otp-http-"));
const port = 4600 + Math.floor(Math.random() * 300);
const server = await startServer({
  impl: "latchkey",
  port,
  store,
  jwtHeader: true,
  dbFile: join(dir, "auth.db"),
  ...(sendLimits ? { latchkeySendLimits: true } : {}),
});
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const json = { "content-type": "application/json", origin: server.baseUrl };

function request(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, agent, headers: body ? json : {} }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

let roundTrips = 0;
let running = true;
const run = Date.now().toString(36);
async function client(): Promise<void> {
  while (running) {
    const email = `otp-${run}-${roundTrips}-${Math.random().toString(36).slice(2)}@bench.test`;
    const sent = await request(
      "POST",
      "/auth/email-otp/send-verification-otp",
      JSON.stringify({ email, purpose: "sign-in" }),
    );
    if (sent.status !== 200) throw new Error(`send answered ${sent.status}: ${sent.text}`);
    const read = await request("GET", `/__bench/otp?email=${encodeURIComponent(email)}`);
    const { otp } = JSON.parse(read.text) as { otp: string };
    if (!sendsOnly) {
      const signedIn = await request("POST", "/auth/sign-in/email-otp", JSON.stringify({ email, otp }));
      if (!signedIn.text.includes('"user"')) throw new Error(`sign-in answered ${signedIn.status}: ${signedIn.text}`);
    }
    roundTrips += 1;
  }
}

const clients = Array.from({ length: concurrency }, client);
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));
await sleep(warmup);
const [n0, cpu0] = [roundTrips, server.cpuMs()];
await sleep(seconds);
const [n1, cpu1] = [roundTrips, server.cpuMs()];
running = false;
await Promise.all(clients);
const what = sendsOnly ? "send + read" : "send + read + sign-in";
console.log(
  `${store}: ${n1 - n0} round trips (${what}) in ${seconds} s, ${concurrency} in flight; ` +
    `server CPU ${(((cpu1 - cpu0) / (n1 - n0)) * 1000).toFixed(0)} µs per round trip`,
);
await server.stop();
agent.destroy();
rmSync(dir, { recursive: true, force: true });
