import { afterEach, expect } from "vitest";
import { apiKeys, type CacheCarrier, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth, type TestAuth } from "../test-auth.ts";
import { storesForTestRun } from "../test-stores.ts";

// What the lookup cache's tests share (revocation.test.ts and its siblings): instances with the cache on over the
// run's store, and the waits for a carrier's delivery, counted in `stats()`, never for a time.

const CEILING_MS = 15_000;

/** Polls `done` until it holds; fails after a generous ceiling (a carrier that never delivers). */
export async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const listening = (t: TestAuth) => until("the carrier listens", () => t.auth.cache?.stats().bypassed === false);
const received = (t: TestAuth) => t.auth.cache?.stats().invalidationsReceived ?? 0;

export async function session(t: TestAuth, token: string): Promise<{ user: { appMetadata: unknown } } | null> {
  return (await t.request("GET", "/get-session", { headers: bearer(token) })).json();
}

/** Reads the session twice on `t` and checks the second read was answered from its cache. */
export async function cachedOn(t: TestAuth, token: string): Promise<void> {
  expect(await session(t, token)).not.toBeNull();
  const hits = t.auth.cache?.stats().hits ?? 0;
  expect(await session(t, token)).not.toBeNull();
  expect(t.auth.cache?.stats().hits).toBeGreaterThan(hits);
}

const published = (t: TestAuth) => t.auth.cache?.stats().invalidationsPublished ?? 0;

/**
 * Runs `change` on A, then waits until B heard every invalidation the change published (B publishes nothing in
 * these tests, and every earlier change was waited for the same way, so nothing late passes for this one's).
 */
export async function onA(a: TestAuth, b: TestAuth, change: () => Promise<unknown>): Promise<void> {
  const heard = received(b);
  const before = published(a);
  await change();
  const count = published(a) - before;
  expect(count).toBeGreaterThan(0);
  await until("B hears the invalidation", () => received(b) >= heard + count);
}

export async function signIn(t: TestAuth, email: string): Promise<string> {
  const res = await t.request("POST", "/sign-in/email", {
    body: { email, password: "correct horse battery" },
    ip: "198.51.100.77",
  });
  return ((await res.json()) as { credentials: { token: string } }).credentials.token;
}

/**
 * `port` with `method` held once, after the store answered, on its first call while `armed()`: `read` resolves when
 * that call is held, and `release()` lets it answer. What the generation-check cases pause a read with.
 */
export function pausedOnce<P extends object>(port: P, method: keyof P & string, armed: () => boolean) {
  let readDone: () => void = () => undefined;
  const read = new Promise<void>((resolve) => (readDone = resolve));
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const wrapped = new Proxy(port, {
    get: (target, property, receiver) =>
      property === method
        ? async (...args: unknown[]) => {
            const found: unknown = await (target[method] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (!held && armed()) {
              held = true;
              readDone();
              await gate;
            }
            return found;
          }
        : Reflect.get(target, property, receiver),
  });
  return { port: wrapped, read, release: () => release() };
}

/**
 * The instances of a file with the cache on (call it at the top of the file): each is closed after the test that
 * opened it, and the list of open ones is the file's own.
 */
export function cacheInstances() {
  const opened: TestAuth[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.auth.cache?.close()));
  });

  function instance(store: FullStore, carrier?: CacheCarrier): TestAuth {
    const t = createTestAuth({ store, plugins: [apiKeys()], cache: carrier ? { carrier } : {} });
    opened.push(t);
    return t as TestAuth;
  }

  /** Two auth instances over one database (two connections on libSQL and PostgreSQL; one shared memory store). */
  async function pair(): Promise<{ a: TestAuth; b: TestAuth }> {
    const shared = memoryStore();
    const [first, second] = storesForTestRun(2) ?? [shared, shared];
    const a = instance(first as FullStore);
    const b = instance(second as FullStore);
    await listening(a);
    await listening(b);
    return { a, b };
  }

  /**
   * The generation check on a real carrier: B's first read of a session is paused after the store answered; A signs
   * the session out and B hears it; then B's read completes. That answer was read before the revocation, so it is
   * served once, but it must not be kept: B's next request is refused.
   */
  async function generationCase(carrierOf?: () => CacheCarrier): Promise<void> {
    const shared = memoryStore();
    const [first, second] = (storesForTestRun(2) ?? [shared, shared]) as FullStore[];
    const { port: sessions, read, release } = pausedOnce((second as FullStore).sessions, "findByTokenHash", () => true);
    const a = instance(first as FullStore, carrierOf?.());
    const b = instance({ ...(second as FullStore), sessions }, carrierOf?.());
    await listening(a);
    await listening(b);
    const { token } = await a.signUp("ada@example.com");
    const inFlight = session(b, token);
    await read;
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(token) }));
    release();
    expect(await inFlight).not.toBeNull(); // read before the revocation: answered once
    expect(b.auth.cache?.stats().entries).toBe(0); // but not kept
    expect(await session(b, token)).toBeNull();
  }

  return { instance, pair, generationCase };
}
