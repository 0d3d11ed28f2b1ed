import { serve } from "@hono/node-server";
import { Hono } from "hono";

/** What every bench server process reads from its environment (the harness sets it). */
export interface ServerEnv {
  port: number;
  store: "memory" | "libsql";
  /** libSQL database file (absolute path) when `store` is "libsql". */
  dbFile: string;
  /** Whether get-session adds the `set-auth-jwt` header. */
  jwtHeader: boolean;
  secret: string;
  baseUrl: string;
}

export function readServerEnv(): ServerEnv {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("BENCH_PORT is required");
  const store = process.env.BENCH_STORE === "libsql" ? "libsql" : "memory";
  return {
    port,
    store,
    dbFile: process.env.BENCH_DB_FILE ?? "",
    jwtHeader: process.env.BENCH_JWT_HEADER !== "0",
    secret: process.env.BENCH_SECRET ?? "bench-secret-0123456789abcdef0123456789abcdef",
    baseUrl: `http://127.0.0.1:${port}`,
  };
}

/** Which scenarios a server can run; the harness skips the rest and says why. */
export interface ServerFeatures {
  name: string;
  version: string;
  jwt: boolean;
  apiKeys: boolean;
  emailOtp: boolean;
  store: string;
  passwordHash: string;
}

/** Operations the harness needs that no public endpoint offers (seeding keys, reading captured codes). */
export interface BenchHooks {
  features: ServerFeatures;
  /** Creates one key without quota and one with a quota that cannot run out during a run. */
  createApiKeys(userId: string): Promise<{ unlimited: string; quota: string }>;
  /** The last code sent to an email, captured in-process by the server's own email hook. */
  otpFor(email: string): string | undefined;
}

/**
 * Runs a bench server: private `/__bench/*` routes first, then the app under test, on loopback.
 * Prints `READY <port>` once listening; exits cleanly on SIGTERM/SIGINT so `--cpu-prof` can write its profile.
 */
export function runServer(env: ServerEnv, mount: (app: Hono) => void, hooks: BenchHooks | null): void {
  const app = new Hono();
  app.get("/__bench/features", (c) => c.json(hooks?.features ?? { name: "hono", version: "floor" }));
  app.post("/__bench/gc", (c) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) gc();
    return c.json({ gc: Boolean(gc) });
  });
  if (hooks) {
    app.post("/__bench/api-keys", async (c) => {
      const { userId } = await c.req.json<{ userId: string }>();
      return c.json(await hooks.createApiKeys(userId));
    });
    app.get("/__bench/otp", (c) => {
      const otp = hooks.otpFor(c.req.query("email") ?? "");
      return otp === undefined ? c.json({ error: "no code" }, 404) : c.json({ otp });
    });
  }
  mount(app);
  const server = serve({ fetch: app.fetch, port: env.port, hostname: "127.0.0.1" }, (info) => {
    process.stdout.write(`READY ${info.port}\n`);
  });
  const stop = () => {
    server.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
