import { Buffer } from "node:buffer";
import { constants, createPrivateKey, sign, type KeyObject, type SignKeyObjectInput } from "node:crypto";
import type { JWK } from "jose";
import type { NativeJws } from "./native-jws.ts";
import type { JwsAlgorithm } from "./options.ts";

// Selected by the "node" import condition (Node, Bun): one synchronous crypto.sign per token on a KeyObject
// built once per key. The checks mirror what jose's importJWK enforces on the Web Crypto path.
function fits(key: KeyObject, alg: JwsAlgorithm): boolean {
  if (key.type !== "private") return false;
  switch (alg) {
    case "EdDSA":
      return key.asymmetricKeyType === "ed25519";
    case "ES256":
      return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1";
    case "RS256":
    case "PS256":
      return key.asymmetricKeyType === "rsa" && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048;
  }
}

export const nativeJws: NativeJws | null = {
  signer(jwk: JWK, alg: JwsAlgorithm): (input: string) => string {
    const key = createPrivateKey({ key: { ...jwk }, format: "jwk" });
    if (!fits(key, alg)) throw new Error(`The stored JWT key is not a private ${alg} key`);
    // RFC 7518: ES256 signatures are r || s (not DER); PS256 uses MGF1-SHA-256 with a 32-byte salt.
    const digest = alg === "EdDSA" ? null : "sha256";
    const options: KeyObject | SignKeyObjectInput =
      alg === "ES256"
        ? { key, dsaEncoding: "ieee-p1363" }
        : alg === "PS256"
          ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }
          : key;
    return (input) => sign(digest, Buffer.from(input, "utf8"), options).toString("base64url");
  },
  encode: (text) => Buffer.from(text, "utf8").toString("base64url"),
};
