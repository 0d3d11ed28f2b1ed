import type { Argon2idRaw } from "./argon2.ts";
import { loadNodeRsArgon2 } from "./node-rs-argon2.ts";

interface DenoPermissions {
  permissions?: { querySync?(descriptor: { name: "ffi" | "env" }): { state: "granted" | "denied" | "prompt" } };
}

// Deno loads the native addon only with --allow-ffi (and env access, which its loader reads). Query first so a
// terminal never gets a permission prompt, then try; otherwise the portable engine.
async function loadNative(): Promise<Argon2idRaw | null> {
  const permissions = (globalThis as { Deno?: DenoPermissions }).Deno?.permissions;
  const granted = (name: "ffi" | "env") => permissions?.querySync?.({ name }).state === "granted";
  if (!granted("ffi") || !granted("env")) return null;
  return loadNodeRsArgon2();
}

// Selected by the "deno" condition of `#native-argon2`.
export const nativeArgon2idRaw: Argon2idRaw | null = await loadNative();

/** Native hashes at once on Deno: 4 (the addon's pool), but no more than the CPUs Deno reports. */
export const nativeArgon2Threads: number = Math.max(
  1,
  Math.min(4, (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 4),
);
