import { COSE_ALGORITHMS } from "./cose.ts";

/** Transports a browser may report (WebAuthn Level 3). */
export type AuthenticatorTransport = "ble" | "cable" | "hybrid" | "internal" | "nfc" | "smart-card" | "usb";

/** A credential named in `excludeCredentials` / `allowCredentials`. */
export interface CredentialDescriptorJSON {
  id: string;
  type: "public-key";
  transports?: AuthenticatorTransport[];
}

/**
 * `PublicKeyCredentialCreationOptionsJSON` (WebAuthn Level 3, 5.1.1): what `navigator.credentials.create()` takes
 * once `PublicKeyCredential.parseCreationOptionsFromJSON` (or `@simplewebauthn/browser`) decodes it.
 */
export interface PublicKeyCredentialCreationOptionsJSON {
  rp: { name: string; id: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: { alg: number; type: "public-key" }[];
  timeout: number;
  excludeCredentials: CredentialDescriptorJSON[];
  authenticatorSelection: {
    residentKey: "required";
    requireResidentKey: true;
    userVerification: "required" | "preferred";
  };
  attestation: "none";
  extensions: { credProps: true };
}

/** `PublicKeyCredentialRequestOptionsJSON` (WebAuthn Level 3, 5.1.2), for `navigator.credentials.get()`. */
export interface PublicKeyCredentialRequestOptionsJSON {
  challenge: string;
  timeout: number;
  rpId: string;
  allowCredentials: CredentialDescriptorJSON[];
  userVerification: "required" | "preferred";
}

/**
 * Options for registering a discoverable credential (resident key required), attestation `none`, the listed
 * credentials excluded. Every value is base64url already (challenge, user id, credential ids).
 *
 * @example
 * creationOptions({ rp: { name: "Acme", id: "acme.example" }, user, challenge, timeout: 300_000, exclude: [], userVerification: "required" });
 */
export function creationOptions(input: {
  rp: { name: string; id: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  timeout: number;
  exclude: CredentialDescriptorJSON[];
  userVerification: "required" | "preferred";
}): PublicKeyCredentialCreationOptionsJSON {
  return {
    rp: input.rp,
    user: input.user,
    challenge: input.challenge,
    pubKeyCredParams: COSE_ALGORITHMS.map((alg) => ({ alg, type: "public-key" as const })),
    timeout: input.timeout,
    excludeCredentials: input.exclude,
    authenticatorSelection: {
      residentKey: "required",
      requireResidentKey: true,
      userVerification: input.userVerification,
    },
    attestation: "none",
    extensions: { credProps: true },
  };
}

/**
 * Options for a sign-in: `allowCredentials` empty for a discoverable sign-in (and autofill), or the user's.
 *
 * @example
 * requestOptions({ rpId: "acme.example", challenge, timeout: 300_000, allow: [], userVerification: "required" });
 */
export function requestOptions(input: {
  rpId: string;
  challenge: string;
  timeout: number;
  allow: CredentialDescriptorJSON[];
  userVerification: "required" | "preferred";
}): PublicKeyCredentialRequestOptionsJSON {
  return {
    challenge: input.challenge,
    timeout: input.timeout,
    rpId: input.rpId,
    allowCredentials: input.allow,
    userVerification: input.userVerification,
  };
}
