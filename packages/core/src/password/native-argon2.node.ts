import { availableParallelism } from "node:os";
import type { Argon2idRaw } from "./argon2.ts";
import { loadNodeRsArgon2 } from "./node-rs-argon2.ts";

// Selected by the "node" condition of `#native-argon2` (Node, Bun); without the optional `@node-rs/argon2` the
// portable engine takes over.
export const nativeArgon2idRaw: Argon2idRaw | null = await loadNodeRsArgon2();

/**
 * How many native hashes can make progress at once: libuv's thread pool (`UV_THREADPOOL_SIZE`, default 4), but no
 * more than the CPUs this process may use (a container or `taskset` with one CPU gets 1), since a hash beyond them
 * only takes CPU time from the event loop.
 */
export const nativeArgon2Threads: number = Math.max(
  1,
  Math.min(
    Number(process.env.UV_THREADPOOL_SIZE) > 0 ? Number(process.env.UV_THREADPOOL_SIZE) : 4,
    availableParallelism(),
  ),
);
