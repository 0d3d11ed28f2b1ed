import type { Argon2idRaw } from "./argon2.ts";

// Runtimes without native addons (workerd, browsers) use the portable @noble/hashes engine.
export const nativeArgon2idRaw: Argon2idRaw | null = null;
