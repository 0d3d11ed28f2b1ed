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
  /**
   * Longest wait for a publication's answer. When it passes, the publication fails (the cache is bypassed until a
   * drop-everything message went out), the carrier reports itself down, and the publishing connection is opened
   * again: a frozen or unreachable Redis never holds a sign-out or a revocation. Default 2 s.
   */
  commandTimeout?: Duration;
}

/** The options `redisCacheCarrier` accepts; any other key is an `AuthConfigError` naming the nearest one. */
export const REDIS_CACHE_CARRIER_OPTION_SHAPE: OptionShape = {
  url: true,
  channel: true,
  heartbeat: true,
  connectTimeout: true,
  commandTimeout: true,
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
  const commandTimeout = parseDuration(options.commandTimeout ?? "2s", "redisCacheCarrier.commandTimeout");
  // Our probes carry an id of this carrier, so another instance's probe never proves our subscription.
  const carrier = new ProbedCarrier(
    options.url,
    channel,
    heartbeatMs,
    { connectTimeout, commandTimeout },
    randomId(webCryptoRandom),
  );
  return {
    start: (listener) => carrier.start(listener),
    publish: (payload) => carrier.publish(payload),
    close: () => carrier.close(),
  };
}

/** Logs at most one line a second (an outage reports every reconnection attempt), the first line of each message. */
function throttledLog(source: string): (message: string) => void {
  let lastLog = 0;
  return (message) => {
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`[latchkey] ${source}: ${message.split("\n")[0]}`);
  };
}

/**
 * The carrier's state: a subscribing and a publishing connection, and the heartbeat that proves the subscription
 * live (`up`) by publishing a probe every half `heartbeatMs` and hearing it back within `heartbeatMs`.
 */
class ProbedCarrier {
  private listener: CacheCarrierListener | null = null;
  private up = false;
  private closed = false;
  private sequence = 0;
  private awaiting: { n: number; sentAt: number } | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly log = throttledLog("Redis cache carrier");
  private readonly sub: ReturnType<typeof newClient>;
  private pub: ReturnType<typeof newClient>;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly heartbeatMs: number,
    private readonly timeouts: { connectTimeout: number; commandTimeout: number },
    private readonly self: string,
  ) {
    this.sub = newClient(url, timeouts.connectTimeout);
    this.pub = newClient(url, timeouts.connectTimeout);
    for (const client of [this.sub, this.pub]) client.on("error", (error: Error) => this.log(error.message));
    // A lost subscription connection: bypass at once (the heartbeat would notice too, later).
    this.sub.on("end", () => this.down("subscription connection ended"));
    this.sub.on("reconnecting", () => this.down("subscription connection lost"));
  }

  private down(reason: string): void {
    if (!this.up) return;
    this.up = false;
    this.listener?.down(reason);
  }

  private readonly probe = (): void => {
    if (this.closed) return;
    if (this.awaiting && Date.now() - this.awaiting.sentAt >= this.heartbeatMs) this.down("no heartbeat came back");
    if (this.awaiting && this.up) return;
    this.awaiting = { n: ++this.sequence, sentAt: Date.now() };
    this.send(`${PROBE}${this.self}:${this.awaiting.n}`).catch((error: unknown) => {
      this.log(describeError(error));
      this.down("cannot publish");
    });
  };

  private readonly heard = (payload: string): void => {
    if (!payload.startsWith(PROBE)) {
      this.listener?.message(payload);
      return;
    }
    if (this.awaiting === null || payload !== `${PROBE}${this.self}:${this.awaiting.n}`) return;
    this.awaiting = null;
    if (!this.up) {
      this.up = true;
      this.listener?.up();
    }
  };

  private async subscribe(): Promise<void> {
    if (!this.sub.isOpen) await this.sub.connect();
    if (!this.pub.isOpen) await this.pub.connect();
    // Once subscribed, node-redis subscribes again by itself after every reconnection; the probes tell when.
    await this.sub.subscribe(this.channel, this.heard);
  }

  /** Subscribes (again every second until it works), then starts the heartbeat. */
  private readonly attempt = (): void => {
    this.subscribe().then(
      () => {
        if (this.closed) return;
        this.timer = setInterval(this.probe, Math.max(50, Math.floor(this.heartbeatMs / 2)));
        this.timer.unref?.();
        this.probe();
      },
      (error: unknown) => {
        this.log(describeError(error));
        if (!this.closed) setTimeout(this.attempt, 1000).unref?.();
      },
    );
  };

  start(listener: CacheCarrierListener): void {
    this.listener = listener;
    this.attempt();
  }

  async publish(payload: string): Promise<void> {
    await this.send(payload);
  }

  /**
   * One `PUBLISH`, bounded by `commandTimeout`: past it the carrier is down, the publishing connection is replaced
   * (a frozen server or a half-open connection would hold every later one too) and the publication fails.
   */
  private async send(payload: string): Promise<void> {
    const pub = this.pub;
    const pending = pub.publish(this.channel, payload);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      pending.then(() => false),
      new Promise<true>((resolve) => {
        timer = setTimeout(() => resolve(true), this.timeouts.commandTimeout);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!timedOut) return;
    // The answer may still come, or the drop below rejects it: nobody waits for it any more.
    pending.catch(() => undefined);
    this.down("a publication got no answer");
    this.reopenPublisher(pub);
    throw new Error(`Redis did not answer a publication within ${this.timeouts.commandTimeout} ms`);
  }

  /** Replaces the publishing connection `stale` (once, however many publications timed out on it). */
  private reopenPublisher(stale: ReturnType<typeof newClient>): void {
    if (this.closed || this.pub !== stale) return;
    this.log(`no answer within ${this.timeouts.commandTimeout} ms; reconnecting the publishing connection`);
    this.pub = newClient(this.url, this.timeouts.connectTimeout);
    this.pub.on("error", (error: Error) => this.log(error.message));
    this.pub.connect().catch(() => undefined);
    if (stale.isOpen) stale.destroy();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.down("closed");
    // Nothing in flight matters here (a lost publication is what the ttl bounds): drop both connections at once.
    for (const client of [this.sub, this.pub]) if (client.isOpen) client.destroy();
  }
}
