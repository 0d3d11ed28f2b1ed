/**
 * A runtime's synchronous SHA-256 of UTF-8 text, base64url without padding, chosen by the `#native-sha256` import
 * condition: `node:crypto` on Node and Bun (`native-sha256.node.ts`), none elsewhere (`native-sha256.web.ts`, so
 * `@noble/hashes` hashes). `hashSecret` runs on every authenticated request; the native digest costs about a
 * quarter of the portable one.
 *
 * @example
 * import { nativeSha256 } from "#native-sha256";
 * const stored = nativeSha256?.(token);
 */
export type NativeSha256 = (text: string) => string;

/**
 * A runtime's synchronous HMAC-SHA-256 under one key, set up once (`node:crypto` on Node and Bun, none elsewhere):
 * the returned function MACs UTF-8 text. Counter keys and stored OTP codes are MACed on every send and sign-in.
 *
 * @example
 * import { nativeHmacSha256 } from "#native-sha256";
 * const mac = nativeHmacSha256?.(key)("email:ada@example.com");
 */
export type NativeHmacSha256 = (key: Uint8Array) => (text: string) => Uint8Array;
