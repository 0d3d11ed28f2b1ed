import type { LoadPlan } from "./load.ts";
import type { Pool, PoolKind } from "./pool.ts";
import type { Impl, ServerProcess } from "./process.ts";
import type { Seed } from "./seed.ts";

export type Feature = "jwt" | "apiKeys" | "emailOtp" | "secondFactor" | "social";

/** A load scenario run against both servers in the same server configuration. */
export interface Scenario {
  id: string;
  title: string;
  /** Server configuration: does get-session add the JWT header. */
  jwtHeader: boolean;
  needs: Feature[];
  /** The ratio Latchkey/Better Auth we aim for, per store (null: no target). */
  target: { memory: number | null; libsql: number | null };
  /**
   * The store work one request costs each side, read off the code (Latchkey's store and core, Better Auth 1.7.5's
   * adapter calls in its defaults): the reason behind a ratio.
   */
  work: string;
  /** What one operation is, for the table. */
  unit: "req" | "round trip";
  /**
   * Window multiplier for slow operations (password hashing): at 32 connections one request waits for the 31
   * ahead of it, so the windows must be long against that queue for the count to mean anything.
   */
  windowScale?: number;
  /**
   * The measured request spends a single-use credential: a pool of them is seeded in bulk before every window
   * (`POST /__bench/pool`, in the server, not timed), sized from the previous window's use (the first window from
   * `firstGuess`, per store); a window that runs out is measured again with a larger pool.
   */
  pool?: { kind: PoolKind; firstGuess: { memory: number; libsql: number; postgres: number } };
  /** Connections of the load generator when not the run's (`--connections`, 32 by default). */
  connections?: number;
  plan(
    impl: Exclude<Impl, "floor">,
    server: ServerProcess,
    seed: Seed,
    pool?: Pool,
  ): Omit<LoadPlan, "connections" | "warmupMs" | "measureMs">;
}

export const json = (server: ServerProcess) => ({ "content-type": "application/json", origin: server.baseUrl });

/** Rotates through the seeded sessions so no single row or cache line serves every request. */
export function rotating<T>(items: T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next % items.length] as T;
    next += 1;
    return item;
  };
}
