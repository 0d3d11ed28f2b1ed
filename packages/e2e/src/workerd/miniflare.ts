import { Miniflare } from "miniflare";

/** The compatibility date the examples and tests run with (the bundled workerd supports it). */
export const COMPATIBILITY_DATE = "2026-04-01";

export interface RunningWorker {
  /** Sends a web `Request` into workerd through Miniflare and returns a web `Response`. */
  fetch(request: Request): Promise<Response>;
  dispose(): Promise<void>;
}

/**
 * Runs an ES-module worker script in workerd (Miniflare), without `nodejs_compat`.
 *
 * @example
 * import { bundleWorker, startWorker } from "@latchkey/e2e/workerd";
 * const worker = await startWorker((await bundleWorker("src/worker.ts")).code, { LATCHKEY_SECRET: "..." });
 * const res = await worker.fetch(new Request("http://localhost/auth/get-session"));
 */
export async function startWorker(script: string, bindings: Record<string, string> = {}): Promise<RunningWorker> {
  // An explicit module list: with `script`, Miniflare parses the code in Node first (seconds for a large bundle).
  const mf = new Miniflare({ modules: [{ type: "ESModule", path: "worker.js", contents: script }], compatibilityDate: COMPATIBILITY_DATE, bindings });
  await mf.ready;
  return {
    async fetch(request) {
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const res = await mf.dispatchFetch(request.url, { method: request.method, headers: [...request.headers], body, redirect: "manual" });
      // Miniflare answers with its own undici classes; rebuild a global Response (multiple Set-Cookie kept).
      const headers = new Headers();
      for (const [name, value] of res.headers) if (name !== "set-cookie") headers.append(name, value);
      for (const cookie of res.headers.getSetCookie()) headers.append("set-cookie", cookie);
      return new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers });
    },
    dispose: () => mf.dispose(),
  };
}
