import {
  AuthConfigError,
  describeError,
  webCryptoRandom,
  type CacheCarrier,
  type CacheCarrierListener,
} from "@latchkey/core";
import { randomId } from "@latchkey/core/internal";
import pg from "pg";

/** The channel every Latchkey instance over one PostgreSQL database listens on. */
const PG_CACHE_CHANNEL = "latchkey_cache";
/** A probe's payload starts with this; invalidations never do (`s:`, `u:`, `k:`, `*`). */
const PROBE = "p:";

/** Timing of the LISTEN connection (tests shorten them). */
export interface PgCacheCarrierTiming {
  /** Wait before opening the LISTEN connection again after it was lost. Default 1 s. */
  reconnectDelayMs?: number;
  /**
   * A probe is sent with `NOTIFY` every half this time and must come back on the LISTEN connection within it, or
   * the connection is taken for lost (the cache is bypassed) and opened again. Default 2 s.
   */
  heartbeatMs?: number;
}

/**
 * Why a connection cannot carry `LISTEN`, when its settings say it goes through a transaction pooler (PgBouncer
 * in transaction mode, Supavisor, a provider's pooled endpoint): such a pooler hands each statement to any server
 * connection, so a `LISTEN` hears nothing. Null when nothing says so. Recognized: `pgbouncer=true` in the URL (the
 * convention Prisma and others follow), port 6543 (Supabase's and Supavisor's transaction pooler), and a host name
 * with a `pooler` label (Supabase `*.pooler.supabase.com`, Neon `*-pooler.*`).
 */
export function pooledConnection(options: pg.PoolConfig): string | null {
  let host = options.host ?? "";
  let port = options.port === undefined ? "" : String(options.port);
  if (options.connectionString) {
    try {
      const url = new URL(options.connectionString);
      if (url.searchParams.get("pgbouncer") === "true") return "the URL says pgbouncer=true";
      host ||= url.hostname;
      port ||= url.port;
    } catch {
      // Not a URL (a key=value string): nothing to tell from it.
    }
  }
  if (port === "6543") return "port 6543 is a transaction pooler's (Supabase, Supavisor)";
  if (/(^|[.-])pooler([.-]|$)/i.test(host)) return `the host ${host} is a connection pooler`;
  return null;
}

/** An `AuthConfigError` when the pool's settings name a transaction pooler (see `pooledConnection`). */
function refusePooled(pool: pg.Pool): void {
  const pooled = pooledConnection(pool.options);
  if (pooled !== null)
    throw new AuthConfigError(
      "cache",
      `the PostgreSQL cache carrier needs LISTEN, which a transaction pooler drops (${pooled}): open the store ` +
        "with the direct or session-mode URL, or pass cache.carrier (redisCacheCarrier({ url }) from " +
        "@latchkey/redis-store) (docs/cache.md)",
    );
}

/**
 * Cache invalidations over PostgreSQL `LISTEN/NOTIFY`: one extra connection (outside the pool) listens on
 * `latchkey_cache`; a publication is one `pg_notify` through the pool, after the write committed. The connection
 * proves it hears: a probe it sends with `NOTIFY` every half `heartbeatMs` must come back on it within
 * `heartbeatMs`. The cache is used only from the first probe heard; when one does not come back (a pooler that
 * drops `LISTEN`, a half-open connection, a proxy that loses notifications), or the connection is lost, the cache
 * is told `down` at once and the connection is opened again every `reconnectDelayMs`.
 *
 * Refuses (an `AuthConfigError`, from `createAuth`) a pool whose settings name a transaction pooler: pass the
 * direct (or session-mode) URL, or `cache.carrier`.
 */
export function pgCacheCarrier(pool: pg.Pool, timing: PgCacheCarrierTiming = {}): CacheCarrier {
  refusePooled(pool);
  const reconnectDelayMs = timing.reconnectDelayMs ?? 1000;
  const heartbeatMs = timing.heartbeatMs ?? 2000;
  // Probes carry an id of this carrier: another instance's probe never proves this connection.
  const self = randomId(webCryptoRandom);
  let listener: CacheCarrierListener | null = null;
  let current: pg.Client | null = null;
  let closed = false;
  let up = false;
  let reconnect: ReturnType<typeof setTimeout> | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let sequence = 0;
  let awaiting: { n: number; sentAt: number } | null = null;

  const lost = (client: pg.Client, reason: string) => {
    if (current !== client) return;
    current = null;
    awaiting = null;
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    client.end().catch(() => undefined);
    if (up) {
      up = false;
      listener?.down(reason);
    }
    if (!closed) reconnect = setTimeout(connect, reconnectDelayMs);
  };

  /** Sends the next probe on the LISTEN connection itself; one not heard back within `heartbeatMs` loses it. */
  const probe = (client: pg.Client) => {
    if (current !== client || closed) return;
    if (awaiting !== null) {
      if (Date.now() - awaiting.sentAt >= heartbeatMs) lost(client, "no heartbeat came back on the LISTEN connection");
      return;
    }
    awaiting = { n: ++sequence, sentAt: Date.now() };
    client
      .query("select pg_notify($1, $2)", [PG_CACHE_CHANNEL, `${PROBE}${self}:${awaiting.n}`])
      .catch((error: unknown) => lost(client, describeError(error)));
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
      if (current !== client || message.channel !== PG_CACHE_CHANNEL || !message.payload) return;
      if (!message.payload.startsWith(PROBE)) {
        listener?.message(message.payload);
        return;
      }
      if (awaiting === null || message.payload !== `${PROBE}${self}:${awaiting.n}`) return;
      awaiting = null;
      if (!up) {
        up = true;
        listener?.up();
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${PG_CACHE_CHANNEL}`);
    } catch (error) {
      lost(client, describeError(error));
      return;
    }
    if (current !== client || closed) return;
    // `up` waits for the first probe to come back: LISTEN having run proves nothing behind a pooler.
    heartbeat = setInterval(() => probe(client), Math.max(25, Math.floor(heartbeatMs / 2)));
    heartbeat.unref?.();
    probe(client);
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
