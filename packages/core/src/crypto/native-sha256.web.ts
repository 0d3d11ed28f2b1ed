import type { NativeHmacSha256, NativeSha256 } from "./native-sha256.ts";

// Runtimes without node:crypto (workerd, Deno, browsers): Web Crypto's digest is asynchronous, so @noble/hashes.
export const nativeSha256: NativeSha256 | null = null;

export const nativeHmacSha256: NativeHmacSha256 | null = null;
