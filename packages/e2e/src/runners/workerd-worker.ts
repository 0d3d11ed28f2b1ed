// The worker the workerd runner bundles with esbuild and runs in Miniflare. Test-only: it exposes captured codes.
import { createE2eAuth, type E2eAuth } from "../app.ts";
import type { HashEntry } from "../argon2-exchange.ts";
import { runOnThisRuntime } from "./run-runtime.ts";

// Created on first request: Workers refuse random values (ids, salts) at global scope.
let served: E2eAuth | undefined;

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/__e2e/run") {
      // The whole suite inside the isolate: handler, journeys, jose and argon2 all run on workerd.
      const { incoming } = (await request.json()) as { incoming: HashEntry[] | null };
      const lines: string[] = [];
      await runOnThisRuntime("workerd", { incoming, log: (line) => lines.push(line) });
      return Response.json({ lines });
    }
    served ??= createE2eAuth();
    if (url.pathname === "/__e2e/otp")
      return Response.json({ code: (await served.target.latestOtp!(url.searchParams.get("email") ?? "")) ?? null });
    return served.target.handler(request);
  },
};
