/** Rows a sweep removes per statement unless told otherwise (`auth.api.sweep({ batchSize })`). */
export const SWEEP_BATCH_SIZE = 1000;

type Schedule = (callback: () => void) => unknown;
// `setImmediate` where the runtime has it (Node, Bun): the turn lets waiting I/O and due timers run without the
// 1 ms floor of a zero timeout. Elsewhere (Workers, Deno, browsers) a zero timeout.
const schedule: Schedule =
  typeof (globalThis as { setImmediate?: Schedule }).setImmediate === "function"
    ? (globalThis as unknown as { setImmediate: Schedule }).setImmediate
    : (callback) => setTimeout(callback, 0);

/**
 * Resolves after one turn of the event loop: a macrotask, not a microtask, so requests waiting on I/O run before
 * the caller goes on. What a long loop awaits between two chunks of work.
 *
 * @example
 * for (const chunk of chunks) { await work(chunk); await yieldToEventLoop(); }
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => {
    schedule(resolve);
  });
}

/**
 * Runs `batch(size)` until it removes fewer than `size` rows, with a turn of the event loop between two batches;
 * answers the total removed.
 *
 * @example
 * const removed = await inBatches(1000, (limit) => store.sessions.deleteExpired(now, limit));
 */
export async function inBatches(size: number, batch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await batch(size);
    total += removed;
    if (removed < size) return total;
    await yieldToEventLoop();
  }
}
