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
