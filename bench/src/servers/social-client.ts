/**
 * The bench's OpenID client as both libraries are configured with it, and the provider's (oidc-provider.ts) side of
 * it. A module of its own without the provider package: the servers import it, also from a `--baseline` checkout.
 */
export const BENCH_PROVIDER_ID = "bench-id";
export const BENCH_CLIENT_ID = "latchkey-bench";
export const BENCH_CLIENT_SECRET = "bench-client-secret-0123456789abcdef0123456789abcdef";

/** The callback path both libraries serve for the provider (`basePath` `/auth` on both servers). */
export const CALLBACK_PATH = `/auth/callback/${BENCH_PROVIDER_ID}`;
