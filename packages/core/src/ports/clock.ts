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

/** Web Crypto randomness (available on every supported runtime). */
export const webCryptoRandom: Random = {
  bytes(n) {
    const out = new Uint8Array(n);
    // getRandomValues caps one call at 65536 bytes.
    for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
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
