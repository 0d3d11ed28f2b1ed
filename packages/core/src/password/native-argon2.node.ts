import type { Argon2idRaw } from "./argon2.ts";

// Selected by the "node" condition of `#native-argon2` (Node, Bun). `@node-rs/argon2` is an optional dependency:
// when its prebuilt binary is missing (an unsupported platform, `--no-optional`) the portable engine takes over.
async function loadNative(): Promise<Argon2idRaw | null> {
  try {
    const { hashRaw } = await import("@node-rs/argon2");
    // 2 = Algorithm.Argon2id (a const enum in the typings).
    return async (password, salt, p, outputLen) =>
      new Uint8Array(await hashRaw(password, { algorithm: 2, version: 1, memoryCost: p.memoryCost, timeCost: p.timeCost, parallelism: p.parallelism, outputLen, salt }));
  } catch {
    return null;
  }
}

export const nativeArgon2idRaw: Argon2idRaw | null = await loadNative();
