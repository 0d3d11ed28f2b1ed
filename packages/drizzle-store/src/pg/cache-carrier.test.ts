import { createServer, connect, type Server, type Socket } from "node:net";
import type { CacheCarrier } from "@latchkey/core";
import { AuthConfigError } from "@latchkey/core";
import { testPostgresUrl } from "@latchkey/test-support";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgCacheCarrier, pooledConnection } from "./cache-carrier.ts";

// Issue 48 item 12: the PostgreSQL carrier proves that notifications arrive (a probe sent and heard back on its
// own LISTEN connection), so a path that loses them (a transaction pooler, a half-open connection) bypasses the
// cache instead of reporting itself healthy. The path here is a TCP proxy that, when told, swallows every
// NotificationResponse ('A') the server sends, and forwards everything else.

const CEILING_MS = 15_000;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A proxy to PostgreSQL that drops the server's notification messages while `swallow` is on. */
async function notificationSwallowingProxy(target: URL) {
  const state = { swallow: false, swallowed: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    // Server to client: backend messages are [type byte][int32 length, itself included][body].
    let pending = Buffer.alloc(0);
    upstream.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const out: Buffer[] = [];
      while (pending.length >= 5) {
        const size = 1 + pending.readInt32BE(1);
        if (pending.length < size) break;
        const message = pending.subarray(0, size);
        pending = pending.subarray(size);
        if (message[0] === 0x41 && state.swallow) state.swallowed++;
        else out.push(message);
      }
      if (out.length > 0) client.write(Buffer.concat(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = new URL(target.href);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.href,
    state,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What a carrier told its listener. */
function recorder() {
  const events: string[] = [];
  return {
    events,
    listener: {
      message: (payload: string) => void events.push(`message ${payload}`),
      up: () => void events.push("up"),
      down: (reason: string) => void events.push(`down ${reason}`),
    },
    count: (prefix: string) => events.filter((e) => e.startsWith(prefix)).length,
  };
}

describe("PostgreSQL cache carrier heartbeat (a probe round trip on the LISTEN connection)", () => {
  let proxy: Awaited<ReturnType<typeof notificationSwallowingProxy>>;
  let direct: pg.Pool;
  const opened: { carrier: CacheCarrier; pool: pg.Pool }[] = [];
  beforeAll(async () => {
    const target = new URL(testPostgresUrl());
    proxy = await notificationSwallowingProxy(target);
    direct = new pg.Pool({ connectionString: testPostgresUrl(), max: 1 });
  });
  afterEach(async () => {
    proxy.state.swallow = false;
    for (const { carrier, pool } of opened.splice(0)) {
      await carrier.close();
      await pool.end();
    }
  });
  afterAll(async () => {
    await direct?.end();
    await proxy?.close();
  });

  /** A carrier whose connections go through the proxy, with a short heartbeat. */
  function throughProxy() {
    const pool = new pg.Pool({ connectionString: proxy.url, max: 1 });
    const carrier = pgCacheCarrier(pool, { heartbeatMs: 300, reconnectDelayMs: 50 });
    opened.push({ carrier, pool });
    const seen = recorder();
    carrier.start(seen.listener);
    return { carrier, seen };
  }

  it("never reports up while notifications do not arrive (LISTEN ran, but nothing comes back)", async () => {
    proxy.state.swallow = true;
    const { seen } = throughProxy();
    // Several heartbeats pass, each probe swallowed: the cache must stay bypassed.
    await until(
      "three probes were swallowed, or the carrier said up",
      () => proxy.state.swallowed >= 3 || seen.count("up") > 0,
    );
    expect(seen.count("up")).toBe(0);
    proxy.state.swallow = false;
    await until("the carrier listens once probes come back", () => seen.count("up") === 1);
  });

  it("reports down as soon as a probe does not come back, then up again once they do", async () => {
    const { seen } = throughProxy();
    await until("the carrier listens", () => seen.count("up") === 1);
    await direct.query("select pg_notify('latchkey_cache', 's:one')");
    await until("the invalidation arrives", () => seen.count("message s:one") === 1);
    proxy.state.swallow = true;
    await until("the carrier reports the loss", () => seen.count("down") === 1);
    expect(seen.events.find((e) => e.startsWith("down"))).toMatch(/no heartbeat came back/);
    // Lost meanwhile: not delivered, and the cache was bypassed when it was sent.
    await direct.query("select pg_notify('latchkey_cache', 's:two')");
    proxy.state.swallow = false;
    await until("the carrier listens again", () => seen.count("up") === 2);
    await direct.query("select pg_notify('latchkey_cache', 's:three')");
    await until("the next invalidation arrives", () => seen.count("message s:three") === 1);
    // Probes never reach the listener as messages.
    expect(seen.events.filter((e) => e.startsWith("message p:"))).toEqual([]);
  });

  it("refuses a pool whose settings name a transaction pooler", () => {
    for (const connectionString of [
      "postgres://u:p@db.example:5432/app?pgbouncer=true",
      "postgres://u:p@aws-0-eu-west-1.pooler.supabase.com:6543/postgres",
      "postgres://u:p@db.example:6543/app",
      "postgres://u:p@ep-cool-name-123456-pooler.eu-central-1.aws.neon.tech/app",
    ]) {
      const pool = new pg.Pool({ connectionString });
      expect(pooledConnection(pool.options)).not.toBeNull();
      expect(() => pgCacheCarrier(pool)).toThrow(AuthConfigError);
      void pool.end();
    }
    for (const connectionString of [
      "postgres://u:p@db.example:5432/app",
      "postgres://u:p@aws-0-eu-west-1.pooler.supabase.com:5432/postgres?pgbouncer=false",
    ])
      expect(pooledConnection({ connectionString })).toBe(
        connectionString.includes("pooler")
          ? "the host aws-0-eu-west-1.pooler.supabase.com is a connection pooler"
          : null,
      );
  });
});
