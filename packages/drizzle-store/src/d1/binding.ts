/**
 * The part of a Cloudflare D1 binding (`env.DB`) the store and the migrator use. Declared here so that neither
 * Latchkey's types nor yours need `@cloudflare/workers-types`: Cloudflare's `D1Database` (and Miniflare's
 * `getD1Database()` result) fit it.
 *
 * @example
 * import type { D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
 * interface Env { DB: D1DatabaseBinding }
 */
export interface D1DatabaseBinding {
  prepare(query: string): D1StatementLike;
  batch(statements: D1StatementLike[]): Promise<unknown[]>;
  exec(query: string): Promise<unknown>;
}

/** A prepared D1 statement, as far as the store and the migrator use it. */
export interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike;
  all(): Promise<{ results?: unknown[] }>;
  run(): Promise<unknown>;
}
