import {
  AuthConfigError,
  describeError,
  rejectUnknownOptions,
  webCryptoRandom,
  type CacheCarrier,
  type CacheCarrierListener,
  type Duration,
  type OptionShape,
} from "@latchkey/core";
import { parseDuration, randomId } from "@latchkey/core/internal";
import { createClient } from "redis";

/** Options of `redisCacheCarrier`. */
export interface RedisCacheCarrierOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` (TLS). Valkey speaks the same protocol. */
  url: string;
  /** The pub/sub channel; every instance of one app must use the same. Default `"latchkey:cache"`. */
  channel?: string;
  /**
   * How often the carrier proves its subscription works by publishing a probe and hearing it back; a probe not
   * heard within this time takes the cache offline (bypassed) until one is. Default 2 s.
   */
  heartbeat?: Duration;
  /** Longest wait for a connection. Default 2 s. */
  connectTimeout?: Duration;
}

/** The options `redisCacheCarrier` accepts; any other key is an `AuthConfigError` naming the nearest one. */
export const REDIS_CACHE_CARRIER_OPTION_SHAPE: OptionShape = {
  url: true,
  channel: true,
  heartbeat: true,
  connectTimeout: true,
};

const PROBE = "p:";

function newClient(url: string, connectTimeout: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  });
}

/**
 * Cache invalidations over Redis (or Valkey) pub/sub, for `createAuth({ cache: { carrier } })`: one connection
 * subscribes, one publishes. The cache is only used while the subscription is proven live: a probe published every
 * `heartbeat` must come back on it; when one does not (Redis away, the subscription lost, a frozen server) the
 * cache is bypassed, and it is flushed before it is used again.
 *
 * @example
 * import { redisCacheCarrier } from "@latchkey/redis-store";
 * const auth = createAuth({ secret, database, baseUrl, cache: { carrier: redisCacheCarrier({ url: process.env.REDIS_URL! }) } });
 */
export function redisCacheCarrier(options: RedisCacheCarrierOptions): CacheCarrier {
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("redisCacheCarrier", "needs options ({ url })");
  rejectUnknownOptions(options, REDIS_CACHE_CARRIER_OPTION_SHAPE, "redisCacheCarrier.");
  if (typeof options.url !== "string" || !/^rediss?:\/\//.test(options.url))
    throw new AuthConfigError("redisCacheCarrier.url", "must be a redis:// or rediss:// URL");
  const channel = options.channel ?? "latchkey:cache";
  if (typeof channel !== "string" || channel.length === 0)
    throw new AuthConfigError("redisCacheCarrier.channel", "must be a non-empty string");
  const heartbeatMs = parseDuration(options.heartbeat ?? "2s", "redisCacheCarrier.heartbeat");
  const connectTimeout = parseDuration(options.connectTimeout ?? "2s", "redisCacheCarrier.connectTimeout");
  // Our probes carry an id of this carrier, so another instance's probe never proves our subscription.
  const self = randomId(webCryptoRandom);

  let listener: CacheCarrierListener | null = null;
  let up = false;
  let closed = false;
  let sequence = 0;
  let awaiting: { n: number; sentAt: number } | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let lastLog = 0;
  const log = (message: string) => {
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`[latchkey] Redis cache carrier: ${message.split("\n")[0]}`);
  };

  const sub = newClient(options.url, connectTimeout);
  const pub = newClient(options.url, connectTimeout);
  const down = (reason: string) => {
    if (!up) return;
    up = false;
    listener?.down(reason);
  };
  for (const client of [sub, pub]) client.on("error", (error: Error) => log(error.message));
  // A lost subscription connection: bypass at once (the heartbeat would notice too, later).
  sub.on("end", () => down("subscription connection ended"));
  sub.on("reconnecting", () => down("subscription connection lost"));

  const probe = () => {
    if (closed) return;
    if (awaiting && Date.now() - awaiting.sentAt >= heartbeatMs) down("no heartbeat came back");
    if (awaiting && up) return;
    awaiting = { n: ++sequence, sentAt: Date.now() };
    pub.publish(channel, `${PROBE}${self}:${awaiting.n}`).catch((error: unknown) => {
      log(describeError(error));
      down("cannot publish");
    });
  };
  const heard = (payload: string) => {
    if (!payload.startsWith(PROBE)) {
      listener?.message(payload);
      return;
    }
    if (awaiting === null || payload !== `${PROBE}${self}:${awaiting.n}`) return;
    awaiting = null;
    if (!up) {
      up = true;
      listener?.up();
    }
  };

  return {
    start(l) {
      listener = l;
      const begin = async () => {
        if (!sub.isOpen) await sub.connect();
        if (!pub.isOpen) await pub.connect();
        // Once subscribed, node-redis subscribes again by itself after every reconnection; the probes tell when.
        await sub.subscribe(channel, heard);
      };
      const attempt = () => {
        begin().then(
          () => {
            if (closed) return;
            timer = setInterval(probe, Math.max(50, Math.floor(heartbeatMs / 2)));
            timer.unref?.();
            probe();
          },
          (error: unknown) => {
            log(describeError(error));
            if (!closed) setTimeout(attempt, 1000).unref?.();
          },
        );
      };
      attempt();
    },
    async publish(payload) {
      await pub.publish(channel, payload);
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      down("closed");
      // Nothing in flight matters here (a lost publication is what the ttl bounds): drop both connections at once.
      for (const client of [sub, pub]) if (client.isOpen) client.destroy();
    },
  };
}
