import { randomString, webCryptoRandom } from "@latchkey/core";
import { clientIp, type GetClientIp } from "@latchkey/hono-adapter";

/** What the example reads from its environment before it starts (the library itself never reads it). */
export interface ExampleSettings {
  environment: "production" | "development";
  secret: string;
  baseUrl: string;
  /** The socket's peer address, or `X-Forwarded-For` behind `LATCHKEY_PROXY_HOPS` proxies. */
  getClientIp: GetClientIp;
  /** Lines to print at start (a random secret in development). */
  notes: string[];
}

/** The example cannot start: the message names every variable to set. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/**
 * Reads the environment. Production unless `NODE_ENV=development` (`pnpm dev`): development is an explicit choice,
 * never inferred from an `http://` URL. Production refuses to start without `LATCHKEY_SECRET`, an `https://`
 * `LATCHKEY_BASE_URL` and `LATCHKEY_PROXY_HOPS` (0 when clients connect directly; behind a load balancer the number
 * of proxies that overwrite `X-Forwarded-For`, or every user would share the proxy's rate-limit budget).
 */
export function readSettings(env: (name: string) => string | undefined, port: number): ExampleSettings {
  const development = env("NODE_ENV") === "development";
  const missing: string[] = [];
  const hopsText = env("LATCHKEY_PROXY_HOPS");
  let getClientIp: GetClientIp = clientIp.fromSocket;
  if (hopsText !== undefined && hopsText !== "") {
    const hops = Number(hopsText);
    if (!Number.isInteger(hops) || hops < 0)
      throw new SettingsError(`LATCHKEY_PROXY_HOPS must be 0 or a positive integer (got "${hopsText}")`);
    if (hops > 0) getClientIp = clientIp.fromForwardedFor(hops);
  } else if (!development) {
    missing.push(
      "LATCHKEY_PROXY_HOPS (0 when clients connect to this process directly; behind a load balancer or reverse proxy, the number of proxies that overwrite X-Forwarded-For)",
    );
  }
  const secret = env("LATCHKEY_SECRET");
  if (!secret && !development) missing.push("LATCHKEY_SECRET (32 characters or more: `npx latchkey secret`)");
  const baseUrl = env("LATCHKEY_BASE_URL");
  if (!development && !baseUrl?.startsWith("https://"))
    missing.push("LATCHKEY_BASE_URL (the public https:// origin: session cookies are Secure)");
  if (missing.length > 0)
    throw new SettingsError(
      `NODE_ENV is ${env("NODE_ENV") ? `"${env("NODE_ENV")}"` : "unset"}, so this is production, which needs: ${missing.join("; ")}. For a local try, run with NODE_ENV=development (pnpm dev).`,
    );
  return {
    environment: development ? "development" : "production",
    secret: secret || randomString(webCryptoRandom, 64),
    baseUrl: baseUrl ?? `http://localhost:${port}`,
    getClientIp,
    notes: secret ? [] : ["NODE_ENV=development and LATCHKEY_SECRET is not set: using a random secret for this run."],
  };
}
