import { monitorEventLoopDelay } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { PoolItem, ServerPoolKind } from "../harness/pool.ts";

export type StoreKind = "memory" | "libsql" | "postgres";

/** What every bench server process reads from its environment (the harness sets it). */
export interface ServerEnv {
  port: number;
  store: StoreKind;
  /** libSQL database file (absolute path) when `store` is "libsql". */
  dbFile: string;
  /** PostgreSQL database URL when `store` is "postgres". */
  dbUrl: string;
  /** Whether get-session adds the `set-auth-jwt` header. */
  jwtHeader: boolean;
  secret: string;
  baseUrl: string;
}

export function readServerEnv(): ServerEnv {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("BENCH_PORT is required");
  const kind = process.env.BENCH_STORE;
  const store: StoreKind = kind === "libsql" || kind === "postgres" ? kind : "memory";
  return {
    port,
    store,
    dbFile: process.env.BENCH_DB_FILE ?? "",
    dbUrl: process.env.BENCH_DB_URL ?? "",
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
  /** The two-factor and magic-link plugins are installed (`BENCH_SECOND_FACTOR=1`: their own configuration). */
  secondFactor: boolean;
  /** The social sign-in plugin is installed with the bench's OpenID provider (`BENCH_OIDC_ISSUER`). */
  social: boolean;
  store: string;
  passwordHash: string;
}

/** Operations the harness needs that no public endpoint offers (seeding keys, reading captured codes). */
export interface BenchHooks {
  features: ServerFeatures;
  /** Creates one key without quota and one with a quota that cannot run out during a run. */
  createApiKeys(userId: string): Promise<{ unlimited: string; quota: string }>;
  /**
   * The library's server-side API-key verification (`auth.api.verifyApiKey`). Better Auth's is server-only (no HTTP
   * route), so both libraries are measured through the same thin route `POST /bench/api-key/verify` calling it.
   */
  verifyApiKey(key: string): Promise<{ valid: boolean }>;
  /** The last code sent to an email, captured in-process by the server's own email hook. */
  otpFor(email: string): string | undefined;
  /**
   * The library's sweeps of expired rows over every user, each timed by the harness through `/__bench/sweep`; null
   * where the library has none. Each answers how many rows it deleted, when the library says.
   */
  sweeps: { apiKeys: (() => Promise<number | null>) | null; sessions: (() => Promise<number | null>) | null };
  /**
   * Seeds `count` single-use credentials of one kind in bulk, in-process, through the library's own calls where they
   * cost no password hash (bench/src/harness/pool.ts): what the measured request then spends. Absent: the plugins
   * are not installed.
   */
  seedPool?: (kind: ServerPoolKind, count: number) => Promise<PoolItem[]>;
}

/** One sweep as `/__bench/sweep` answers it: wall time, the server process's CPU time, the worst event-loop delay. */
export interface SweepTiming {
  ms: number;
  cpuMs: number;
  deleted: number | null;
  /** The longest the event loop was held during the sweep (`monitorEventLoopDelay`, 10 ms resolution). */
  eventLoopMaxMs?: number;
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
    app.post("/__bench/sweep", async (c) => {
      const which = c.req.query("what") === "sessions" ? hooks.sweeps.sessions : hooks.sweeps.apiKeys;
      if (!which) return c.json({ error: "no such sweep" }, 404);
      // What requests arriving during the sweep would wait at worst: one batch's synchronous work.
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      // A second witness (the histogram can miss a block that starts in the tick it was enabled): the longest gap
      // between two runs of a 5 ms interval. The figure is the larger of the two.
      let last = performance.now();
      let worstGap = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - last - 5);
        last = now;
      }, 5);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const deleted = await which();
      const used = process.cpuUsage(cpu);
      // Both witnesses record a block when their timer finally runs: give them that turn.
      await new Promise((resolve) => setTimeout(resolve, 20));
      clearInterval(ticker);
      loop.disable();
      const timing: SweepTiming = {
        ms: performance.now() - started,
        cpuMs: (used.user + used.system) / 1000,
        deleted,
        eventLoopMaxMs: Math.max(loop.max / 1e6, worstGap),
      };
      return c.json(timing);
    });
    // The same thin route for both libraries: parse the JSON body, call the server API, answer its result.
    app.post("/bench/api-key/verify", async (c) => {
      const { key } = await c.req.json<{ key: string }>();
      const result = await hooks.verifyApiKey(key);
      return c.json(result, result.valid ? 200 : 401);
    });
    app.post("/__bench/pool", async (c) => {
      const kind = c.req.query("kind") === "magic-link" ? "magic-link" : "two-factor";
      const count = Number(c.req.query("count"));
      if (!hooks.seedPool || !Number.isInteger(count) || count < 1) return c.json({ error: "no pool" }, 404);
      try {
        return c.json(await hooks.seedPool(kind, count));
      } catch (error) {
        // The harness stops the run with this message: say what failed (no credential is in it).
        return c.json({ error: String((error as Error).stack ?? error) }, 500);
      }
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
