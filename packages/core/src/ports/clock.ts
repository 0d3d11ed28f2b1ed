/** Time source. Tests inject a movable clock instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Randomness source; must be a CSPRNG in production. */
export interface Random {
  /** Fills and returns `n` random bytes. */
  bytes(n: number): Uint8Array;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

function freshBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  // getRandomValues caps one call at 65536 bytes.
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

/** Bytes drawn from Web Crypto at a time; a request above a quarter of it is drawn on its own. */
const POOL_BYTES = 4096;
let pool: Uint8Array = new Uint8Array(0);
let taken = 0;

/**
 * Web Crypto randomness (available on every supported runtime). Every id and token of a request needs 16-32 bytes,
 * and one `getRandomValues` call per id cost more than the bytes: small requests are served from a pool filled by
 * one call of 4 KiB. Each byte is handed out once, as a copy the caller owns (never a view of the pool), and wiped
 * from the pool as it goes; an exhausted pool is replaced by a newly drawn one.
 */
export const webCryptoRandom: Random = {
  bytes(n) {
    if (n > POOL_BYTES / 4) return freshBytes(n);
    if (taken + n > pool.length) {
      pool = freshBytes(POOL_BYTES);
      taken = 0;
    }
    const out = pool.slice(taken, taken + n);
    pool.fill(0, taken, taken + n);
    taken += n;
    return out;
  },
};

/**
 * A clock tests can move.
 *
 * @example
 * import { createTestClock } from "@latchkey/core";
 * const clock = createTestClock(); clock.advance(60_000);
 */
export function createTestClock(
  start = Date.UTC(2026, 0, 1),
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}
