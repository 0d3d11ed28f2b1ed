import { describeError, type CacheCarrier, type CacheCarrierListener } from "@latchkey/core";
import pg from "pg";

/** The channel every Latchkey instance over one PostgreSQL database listens on. */
const PG_CACHE_CHANNEL = "latchkey_cache";

/** Timing of the LISTEN connection (tests shorten them). */
export interface PgCacheCarrierTiming {
  /** Wait before opening the LISTEN connection again after it was lost. Default 1 s. */
  reconnectDelayMs?: number;
  /** A `select 1` on the LISTEN connection this often, so a silently dead connection is noticed. Default 5 s. */
  heartbeatMs?: number;
}

/**
 * Cache invalidations over PostgreSQL `LISTEN/NOTIFY`: one extra connection (outside the pool) listens on
 * `latchkey_cache`; a publication is one `pg_notify` through the pool, after the write committed. When the LISTEN
 * connection is lost (a restart, a network fault, a heartbeat that fails) the cache is told `down` at once and the
 * connection is opened again every `reconnectDelayMs` until LISTEN runs, then `up` (the cache flushes first).
 */
export function pgCacheCarrier(pool: pg.Pool, timing: PgCacheCarrierTiming = {}): CacheCarrier {
  const reconnectDelayMs = timing.reconnectDelayMs ?? 1000;
  const heartbeatMs = timing.heartbeatMs ?? 5000;
  let listener: CacheCarrierListener | null = null;
  let current: pg.Client | null = null;
  let closed = false;
  let reconnect: ReturnType<typeof setTimeout> | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  const lost = (client: pg.Client, reason: string) => {
    if (current !== client) return;
    current = null;
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    client.end().catch(() => undefined);
    listener?.down(reason);
    if (!closed) reconnect = setTimeout(connect, reconnectDelayMs);
  };

  const connect = async () => {
    reconnect = null;
    if (closed) return;
    // The pool's settings (URL, credentials, TLS, timeouts) for a connection of our own: LISTEN holds it for good.
    const client = new pg.Client({ ...pool.options, application_name: "latchkey-cache" });
    current = client;
    client.on("error", (error) => lost(client, describeError(error)));
    client.on("end", () => lost(client, "connection ended"));
    client.on("notification", (message) => {
      if (current === client && message.channel === PG_CACHE_CHANNEL && message.payload)
        listener?.message(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${PG_CACHE_CHANNEL}`);
    } catch (error) {
      lost(client, describeError(error));
      return;
    }
    if (current !== client || closed) return;
    heartbeat = setInterval(() => {
      client.query("select 1").catch((error: unknown) => lost(client, describeError(error)));
    }, heartbeatMs);
    heartbeat.unref?.();
    listener?.up();
  };

  return {
    start(l) {
      listener = l;
      void connect();
    },
    async publish(payload) {
      await pool.query("select pg_notify($1, $2)", [PG_CACHE_CHANNEL, payload]);
    },
    async close() {
      closed = true;
      if (reconnect) clearTimeout(reconnect);
      if (heartbeat) clearInterval(heartbeat);
      const client = current;
      current = null;
      await client?.end().catch(() => undefined);
    },
  };
}
