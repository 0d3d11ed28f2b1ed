import type { Argon2idRaw } from "./argon2.ts";

// Runtimes without native addons (workerd, browsers) use the portable @noble/hashes engine.
export const nativeArgon2idRaw: Argon2idRaw | null = null;

/** No native engine here: the portable one runs on the main thread, one hash at a time. */
export const nativeArgon2Threads = 1;
