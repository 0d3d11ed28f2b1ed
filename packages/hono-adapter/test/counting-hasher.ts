import { argon2idHasher, webCryptoRandom, type PasswordHasher } from "@latchkey/core";

/**
 * A cheap argon2id hasher that counts the hashes it starts (the calls that got past the hash gate) and can hold
 * them until released, so a test sees how many run at once and how many the gate let through.
 */
export interface CountingHasher extends PasswordHasher {
  /** Hashes and verifies started so far. */
  started: number;
  /** Started and not finished. */
  running: number;
  /** While true, started hashes wait for `release()`. */
  hold: boolean;
  /** Lets every held hash finish (and stops holding). */
  release(): void;
  /** The next `hash` throws (an engine failure), once. */
  failNextHash: boolean;
}

export function countingHasher(): CountingHasher {
  const inner = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });
  let waiters: Array<() => void> = [];
  const gate = async () => {
    if (state.hold) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    state.started++;
    state.running++;
    try {
      await gate();
      return await work();
    } finally {
      state.running--;
    }
  };
  const state: CountingHasher = {
    started: 0,
    running: 0,
    hold: false,
    failNextHash: false,
    release() {
      state.hold = false;
      const all = waiters;
      waiters = [];
      for (const resolve of all) resolve();
    },
    hash: (password) =>
      run(async () => {
        if (state.failNextHash) {
          state.failNextHash = false;
          throw new Error("argon2 engine failure (injected)");
        }
        return inner.hash(password);
      }),
    verify: (hash, password) => run(() => inner.verify(hash, password)),
  };
  return state;
}

/** Waits (macrotask by macrotask) until `condition` holds; the test's own timeout bounds the wait. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}
