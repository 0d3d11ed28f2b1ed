import type { Argon2idRaw } from "./argon2.ts";

/**
 * The native argon2id engine from `@node-rs/argon2` (an optional dependency), or null when it cannot be loaded
 * (not installed, no prebuilt binary for this platform): the portable engine then takes over.
 */
export async function loadNodeRsArgon2(): Promise<Argon2idRaw | null> {
  try {
    const { hashRaw } = await import("@node-rs/argon2");
    // 2 = Algorithm.Argon2id (a const enum in the typings).
    return async (password, salt, p, outputLen) =>
      new Uint8Array(
        await hashRaw(password, {
          algorithm: 2,
          version: 1,
          memoryCost: p.memoryCost,
          timeCost: p.timeCost,
          parallelism: p.parallelism,
          outputLen,
          salt,
        }),
      );
  } catch {
    return null;
  }
}
