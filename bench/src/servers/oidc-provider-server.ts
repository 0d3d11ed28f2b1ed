import { startBenchOidcProvider } from "./oidc-provider.ts";

// The provider as its own process (the harness starts it like the servers): BENCH_PORT, and the callbacks of both
// servers in BENCH_OIDC_REDIRECTS (comma-separated). Prints `READY <port>` once listening.
const port = Number(process.env.BENCH_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("BENCH_PORT is required");
const redirects = (process.env.BENCH_OIDC_REDIRECTS ?? "").split(",").filter(Boolean);
if (redirects.length === 0) throw new Error("BENCH_OIDC_REDIRECTS is required");
const provider = await startBenchOidcProvider(port, redirects);
process.stdout.write(`READY ${port}\n`);
const stop = () => {
  void provider.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
