import type { JWK } from "jose";
import type { JwsAlgorithm } from "./options.ts";

/**
 * A runtime's synchronous JWS primitives, chosen by the `#native-jws` import condition: Node's `node:crypto`
 * (`native-jws.node.ts`) or none (`native-jws.web.ts`, so Web Crypto signs). Synchronous signing skips the
 * async crypto job and promise Web Crypto pays per signature, which dominates a JWT on the hot path.
 *
 * @example
 * import { nativeJws } from "#native-jws";
 * const sign = nativeJws?.signer(privateJwk, "EdDSA"); // built once per key
 * const signature = sign?.(`${header}.${payload}`); // base64url
 */
export interface NativeJws {
  /** A signer for a private JWK of `alg`: signing input in, base64url signature out. Throws when the key does not fit. */
  signer(jwk: JWK, alg: JwsAlgorithm): (input: string) => string;
  /** base64url (no padding) of the UTF-8 bytes of `text`. */
  encode(text: string): string;
}
