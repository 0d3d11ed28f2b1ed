import { AuthError } from "../errors/errors.ts";
import type { PasswordHasher } from "./argon2.ts";

/** How many password hashes run at once and how many may wait (`passwordHashing` option, resolved). */
export interface HashGateLimits {
  /** Hashes computed at the same time (native: the thread pool's size; portable: 1). */
  concurrency: number;
  /** Hashes waiting for a slot; one more is refused with 503 `BUSY`. */
  maxQueue: number;
}

/** What a gate has done, for tests and health pages: hashes running, waiting, started and refused so far. */
export interface HashGateStats {
  running: number;
  /** Waiting, both lanes. */
  queued: number;
  started: number;
  refused: number;
}

/**
 * Which queue a hash waits in: `"anonymous"` (the default: sign-up, sign-in without a device cookie, resets) or
 * `"known"` (a sign-in that presented a valid device cookie). A free slot goes to the known lane first, and each
 * lane has its own `maxQueue`, so a flood of anonymous hashes fills only its own queue.
 */
export type HashLane = "anonymous" | "known";

/**
 * A semaphore in front of the password hasher: at most `concurrency` hashes run, at most `maxQueue` wait, and the
 * next one is refused at once with 503 `BUSY` (`Retry-After: 1`) instead of piling up memory and latency. Sign-in,
 * sign-up, resets, set-password and the dummy hash for unknown accounts all pass through it.
 *
 * @example
 * const gate = new HashGate({ concurrency: 4, maxQueue: 32 });
 * const hasher = gate.wrap(argon2idHasher({ random }));
 */
export class HashGate {
  private running = 0;
  private started = 0;
  private refused = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly knownWaiting: Array<() => void> = [];

  constructor(readonly limits: HashGateLimits) {}

  stats(): HashGateStats {
    const queued = this.waiting.length + this.knownWaiting.length;
    return { running: this.running, queued, started: this.started, refused: this.refused };
  }

  /** Runs `task` when a slot is free; throws `BUSY` without running it when its lane's queue is full. */
  async run<T>(task: () => Promise<T>, lane: HashLane = "anonymous"): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      const queue = lane === "known" ? this.knownWaiting : this.waiting;
      if (queue.length >= this.limits.maxQueue) {
        this.refused++;
        throw new AuthError("BUSY", "The server is busy; try again in a second", { retryAfter: 1 });
      }
      // The slot is handed over by `release`, so `running` never drops while someone waits.
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      this.running++;
    }
    this.started++;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.knownWaiting.shift() ?? this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** The hasher with every `hash` and `verify` passing through this gate, in `lane`. */
  wrap(hasher: PasswordHasher, lane: HashLane = "anonymous"): PasswordHasher {
    return {
      hash: (password) => this.run(() => hasher.hash(password), lane),
      verify: (hash, password) => this.run(() => hasher.verify(hash, password), lane),
    };
  }
}
