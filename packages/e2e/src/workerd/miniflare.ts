import { Miniflare } from "miniflare";

/** The compatibility date the examples and tests run with (the bundled workerd supports it). */
export const COMPATIBILITY_DATE = "2026-04-01";

/** A D1 binding driven from Node (Miniflare's proxy): enough to migrate or inspect it in a test. */
export interface D1Handle {
  prepare(query: string): D1StatementHandle;
  batch(statements: D1StatementHandle[]): Promise<unknown[]>;
  exec(query: string): Promise<unknown>;
}

/** A prepared statement of a `D1Handle`. */
export interface D1StatementHandle {
  bind(...values: unknown[]): D1StatementHandle;
  all(): Promise<{ results?: unknown[] }>;
  run(): Promise<unknown>;
}

export interface RunningWorker {
  /** A D1 binding of this worker, from Node (only with `d1` in `startWorker`'s options). */
  d1(name: string): Promise<D1Handle>;
  /** Sends a web `Request` into workerd through Miniflare and returns a web `Response`. */
  fetch(request: Request): Promise<Response>;
  dispose(): Promise<void>;
}

/** D1 databases for `startWorker`: binding name to database id, and where Miniflare keeps them. */
export interface WorkerD1 {
  /** Binding name to database id, e.g. `{ DB: "DB" }` (wrangler's local id for a binding without `database_id`). */
  databases: Record<string, string>;
  /** A folder for the databases' SQLite files (wrangler's is `.wrangler/state/v3/d1`); in memory when absent. */
  persist?: string;
}

/**
 * Runs an ES-module worker script in workerd (Miniflare), without `nodejs_compat`. With `d1`, the worker gets real
 * D1 bindings (SQLite in Miniflare), shared by every worker started on the same `persist` folder.
 *
 * @example
 * import { bundleWorker, startWorker } from "@latchkey/e2e/workerd";
 * const worker = await startWorker((await bundleWorker("src/worker.ts")).code, { LATCHKEY_SECRET: "..." });
 * const res = await worker.fetch(new Request("http://localhost/auth/get-session"));
 */
export async function startWorker(
  script: string,
  bindings: Record<string, string> = {},
  options: { d1?: WorkerD1 } = {},
): Promise<RunningWorker> {
  const d1 = options.d1
    ? { d1Databases: options.d1.databases, ...(options.d1.persist ? { d1Persist: options.d1.persist } : {}) }
    : {};
  // An explicit module list: with `script`, Miniflare parses the code in Node first (seconds for a large bundle).
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: script }],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings,
    ...d1,
  });
  await mf.ready;
  return {
    d1: (name) => mf.getD1Database(name) as Promise<unknown> as Promise<D1Handle>,
    async fetch(request) {
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const res = await mf.dispatchFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body,
        redirect: "manual",
      });
      // Miniflare answers with its own undici classes; rebuild a global Response (multiple Set-Cookie kept).
      const headers = new Headers();
      for (const [name, value] of res.headers) if (name !== "set-cookie") headers.append(name, value);
      for (const cookie of res.headers.getSetCookie()) headers.append("set-cookie", cookie);
      return new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), {
        status: res.status,
        headers,
      });
    },
    dispose: () => mf.dispose(),
  };
}
