import type { NativeJws } from "./native-jws.ts";

// Runtimes without node:crypto's synchronous sign (workerd, Deno, browsers) keep Web Crypto.
export const nativeJws: NativeJws | null = null;
