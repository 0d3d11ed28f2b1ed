import type { Clock } from "../ports/clock.ts";
import type { Logger } from "../logger/logger.ts";
import { describeError } from "../errors/describe.ts";
import type { CacheCarrier } from "./carrier.ts";
import type { ResolvedCacheOptions } from "./options.ts";
import type { CacheStats } from "./stats.ts";

import {
  decodeInvalidations,
  DROP_EVERYTHING,
  encodeInvalidations,
  KIND_LETTER,
  type Invalidation,
} from "./invalidations.ts";

interface Entry {
  value: unknown;
  expiresAt: number;
  /** When the entry was last put at the recent end of the map (`stamp` then): its place in the eviction order. */
  placed: number;
  sessionId: string | null;
  userId: string | null;
  keyId: string | null;
}

/** Wait between attempts to publish "drop everything" after a publication failed. */
const PUBLISH_RETRY_MS = 1000;

/**
 * The bounded LRU behind `createAuth({ cache })`. Entries are indexed by the session, user and key they hold, so
 * an invalidation naming any of them drops every entry it affects. Three rules keep it from serving what was
 * revoked: `generation` moves on every invalidation, and a value read from the store is kept only when the
 * generation did not move during the read; while the carrier is down (or not yet listening) nothing is read or
 * kept, and when it comes back everything is dropped first; no entry outlives `ttl`.
 */
export class LookupCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byIndex = new Map<string, Set<string>>();
  private generationValue = 0;
  /** Counts placements at the recent end of `entries`: the map's order is the order of its entries' `placed`. */
  private stamp = 0;
  /** Whether the cache is in use: the carrier listens and nothing this instance published was lost. */
  private up: boolean;
  /** The carrier reports that it listens. */
  private listening: boolean;
  /** No publication failed since the last "drop everything" that went out (see `publishLost`). */
  private publishing = true;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private downSince: number | null;
  private counts = {
    hits: 0,
    misses: 0,
    invalidationsReceived: 0,
    invalidationsPublished: 0,
    bypassedMs: 0,
    carrierLosses: 0,
  };
  private readonly carrier: CacheCarrier | null;

  constructor(
    private readonly options: ResolvedCacheOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.carrier = options.carrier;
    this.up = this.carrier === null;
    this.listening = this.up;
    this.downSince = this.up ? null : clock.now();
  }

  /** Starts the carrier: until it reports `up`, lookups bypass the cache. */
  start(): void {
    this.carrier?.start({
      message: (payload) => {
        if (payload === DROP_EVERYTHING) {
          this.counts.invalidationsReceived++;
          this.flush();
          return;
        }
        const list = decodeInvalidations(payload);
        this.counts.invalidationsReceived += list.length;
        for (const invalidation of list) this.drop(invalidation);
      },
      up: () => this.carrierUp(),
      down: (reason) => this.carrierDown(reason),
    });
  }

  /** Moves on every invalidation, flush and carrier change: a read that spanned one is not kept. */
  get generation(): number {
    return this.generationValue;
  }

  /** False while the cache is bypassed. */
  get active(): boolean {
    return this.up;
  }

  private carrierUp(): void {
    this.listening = true;
    this.update(null);
  }

  private carrierDown(reason: string): void {
    this.generationValue++;
    this.listening = false;
    this.update(reason);
  }

  /** Turns the cache on (flushed first) or off (bypassed) when `listening` and `publishing` say it changed. */
  private update(reason: string | null): void {
    const next = this.listening && this.publishing && !this.closed;
    if (next === this.up) return;
    if (next) {
      // Anything may have been revoked while nobody was listening: start empty.
      this.flush();
      this.up = true;
      if (this.downSince !== null) this.counts.bypassedMs += this.clock.now() - this.downSince;
      this.downSince = null;
      // The first time is the normal start; after a loss, the operator wants to see the recovery.
      if (this.counts.carrierLosses > 0)
        this.logger.info({ component: "cache" }, "cache carrier listening again: lookup cache on (flushed)");
      return;
    }
    this.up = false;
    this.downSince = this.clock.now();
    this.counts.carrierLosses++;
    this.flush();
    this.logger.warn(
      { component: "cache", reason: reason ?? "unknown" },
      "cache carrier lost: lookups go to the store until it is back",
    );
  }

  /**
   * A publication failed: the other instances may not have heard a change this one committed. The carrier is
   * treated as lost (this instance bypasses its cache), and "drop everything" is published every second until it
   * goes out; then every instance has dropped what it held, and this one uses its cache again (flushed).
   */
  private publishLost(reason: string): void {
    this.generationValue++;
    this.publishing = false;
    this.update(`an invalidation could not be published: ${reason}`);
    if (this.retry !== null || this.closed) return;
    const attempt = () => {
      this.retry = null;
      if (this.closed || !this.carrier) return;
      this.carrier.publish(DROP_EVERYTHING).then(
        () => {
          this.counts.invalidationsPublished++;
          this.publishing = true;
          this.update(null);
        },
        () => {
          if (this.closed) return;
          this.retry = setTimeout(attempt, PUBLISH_RETRY_MS);
          (this.retry as { unref?: () => void }).unref?.();
        },
      );
    };
    this.retry = setTimeout(attempt, PUBLISH_RETRY_MS);
    (this.retry as { unref?: () => void }).unref?.();
  }

  /** The entry under `key` when the cache is active and it has not expired; counts a hit or a miss. */
  get<T>(key: string): T | undefined {
    const value = this.peek<T>(key);
    if (value === undefined) this.counts.misses++;
    return value;
  }

  /**
   * `get` that counts a hit only: for a caller that reads through `get` when this finds nothing, so the miss is
   * counted once, there.
   */
  peek<T>(key: string): T | undefined {
    if (this.up) {
      const entry = this.entries.get(key);
      if (entry) {
        if (entry.expiresAt > this.clock.now()) {
          // Most recently used last: the map's first entry is the one to evict. An entry placed less than half the
          // bound ago has at most that many entries after it, so it is far from eviction and stays where it is:
          // a hot entry moves once per maxEntries/2 placements, not on every hit (a delete and a set each).
          if (this.stamp - entry.placed >= this.options.maxEntries / 2) {
            this.entries.delete(key);
            this.entries.set(key, entry);
            entry.placed = ++this.stamp;
          }
          this.counts.hits++;
          return entry.value as T;
        }
        this.remove(key);
      }
    }
    return undefined;
  }

  /**
   * Keeps `value` unless the cache is bypassed or an invalidation arrived since `generation` was read; true when it
   * was kept.
   */
  set(
    key: string,
    value: unknown,
    generation: number,
    index: { sessionId?: string; userId?: string; keyId?: string },
  ): boolean {
    if (!this.up || generation !== this.generationValue) return false;
    this.remove(key);
    const entry: Entry = {
      value,
      expiresAt: this.clock.now() + this.options.ttlMs,
      placed: ++this.stamp,
      sessionId: index.sessionId ?? null,
      userId: index.userId ?? null,
      keyId: index.keyId ?? null,
    };
    this.entries.set(key, entry);
    this.link(entry, key);
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.remove(oldest);
    }
    return true;
  }

  /** Changes the value kept under `key` in place (a usage stamp), without touching its expiry. */
  patch<T>(key: string, update: (value: T) => T): void {
    const entry = this.entries.get(key);
    if (entry) entry.value = update(entry.value as T);
  }

  /** The keys of the entries that hold this key id (for patches). */
  keysOfApiKey(keyId: string): string[] {
    return [...(this.byIndex.get(`k:${keyId}`) ?? [])];
  }

  /** Drops every entry the invalidation affects, and moves the generation on. */
  drop(invalidation: Invalidation): void {
    this.generationValue++;
    const keys = this.byIndex.get(`${KIND_LETTER[invalidation.kind]}:${invalidation.id}`);
    if (!keys) return;
    for (const key of [...keys]) this.remove(key);
  }

  /** Applies the invalidations here at once, then tells the other instances. */
  async invalidate(list: readonly Invalidation[]): Promise<void> {
    if (list.length === 0) return;
    for (const invalidation of list) this.drop(invalidation);
    const carrier = this.carrier;
    if (!carrier) return;
    try {
      const payloads = encodeInvalidations(list);
      await Promise.all(payloads.map((payload) => carrier.publish(payload)));
      // What went out: each distinct invalidation once (or one "drop everything").
      for (const payload of payloads) this.counts.invalidationsPublished += payload.split("\n").length;
    } catch (error) {
      // The change is committed; the other instances may not hear of it: see `publishLost`.
      this.logger.error(
        { component: "cache", error: describeError(error) },
        "cache invalidation could not be published: the cache is bypassed until a drop-everything message goes out",
      );
      this.publishLost(describeError(error));
    }
  }

  flush(): void {
    this.generationValue++;
    this.entries.clear();
    this.byIndex.clear();
  }

  stats(): CacheStats {
    const current = this.downSince === null ? 0 : this.clock.now() - this.downSince;
    return {
      hits: this.counts.hits,
      misses: this.counts.misses,
      invalidationsReceived: this.counts.invalidationsReceived,
      invalidationsPublished: this.counts.invalidationsPublished,
      entries: this.entries.size,
      bypassed: !this.up,
      bypassedMs: this.counts.bypassedMs + current,
      carrierLosses: this.counts.carrierLosses,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    this.flush();
    this.up = false;
    await this.carrier?.close();
  }

  private link(entry: Entry, key: string): void {
    for (const name of this.indexNames(entry)) {
      const set = this.byIndex.get(name);
      if (set) set.add(key);
      else this.byIndex.set(name, new Set([key]));
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const name of this.indexNames(entry)) {
      const set = this.byIndex.get(name);
      if (!set) continue;
      set.delete(key);
      if (set.size === 0) this.byIndex.delete(name);
    }
  }

  private indexNames(entry: Entry): string[] {
    const names: string[] = [];
    if (entry.sessionId !== null) names.push(`s:${entry.sessionId}`);
    if (entry.userId !== null) names.push(`u:${entry.userId}`);
    if (entry.keyId !== null) names.push(`k:${entry.keyId}`);
    return names;
  }
}
