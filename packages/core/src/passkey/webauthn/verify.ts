import { base64url, constantTimeEqual, fromBase64url, fromUtf8, utf8 } from "../../crypto/crypto.ts";
import { type CborValue, CborError, decodeCbor, decodeCborWhole } from "./cbor.ts";
import { fail, verifierOf } from "./cose.ts";

/**
 * The WebAuthn relying-party checks (W3C WebAuthn Level 3, sections 7.1 and 7.2) over Web Crypto: client data,
 * authenticator data, COSE public keys, assertion signatures and the attestation formats that can be checked without
 * trust anchors. Nothing here reads a clock, a store or the network.
 */

/** What the caller expects of a response. */
export interface Expectations {
  /** The challenge the options carried (base64url). */
  challenge: string;
  origins: readonly string[];
  rpId: string;
  requireUserVerification: boolean;
}

/** What a verified registration yields. */
export interface VerifiedRegistration {
  credentialId: string;
  /** The credential's COSE public key, as the authenticator encoded it. */
  publicKey: Uint8Array;
  counter: number;
  /** The authenticator model, as a UUID (all zeros when it hides it). */
  aaguid: string;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  userVerified: boolean;
}

/** What a verified assertion yields. */
export interface VerifiedAssertion {
  newCounter: number;
  backedUp: boolean;
  userVerified: boolean;
}

const sha256 = async (bytes: Uint8Array): Promise<Uint8Array> =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));

const bytesOf = (text: string): Uint8Array => fromBase64url(text) ?? fail("malformed");

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The client data's checks: type, challenge, origin, and no cross-origin iframe. Returns its bytes. */
function checkClientData(encoded: string, type: "webauthn.create" | "webauthn.get", expected: Expectations) {
  const bytes = bytesOf(encoded);
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(fromUtf8(bytes));
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return fail("malformed");
    data = parsed as Record<string, unknown>;
  } catch {
    return fail("malformed");
  }
  if (data.type !== type) fail("type");
  if (typeof data.challenge !== "string" || !constantTimeEqual(data.challenge, expected.challenge)) fail("challenge");
  if (typeof data.origin !== "string" || !expected.origins.includes(data.origin)) fail("origin");
  // A page of another origin framing this one: WebAuthn's cross-origin iframe case, which Latchkey does not allow.
  if (data.crossOrigin === true) fail("origin");
  return bytes;
}

/** Authenticator data (WebAuthn 6.1), parsed strictly: flags, counter, attested credential, extensions, no trailer. */
interface AuthenticatorData {
  rpIdHash: Uint8Array;
  userPresent: boolean;
  userVerified: boolean;
  backupEligible: boolean;
  backedUp: boolean;
  counter: number;
  credential: {
    aaguid: Uint8Array;
    id: Uint8Array;
    publicKey: Uint8Array;
    key: Map<number | string, CborValue>;
  } | null;
}

function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  if (bytes.length < 37) fail("malformed");
  const flags = bytes[32]!;
  const counter = ((bytes[33]! << 24) >>> 0) + (bytes[34]! << 16) + (bytes[35]! << 8) + bytes[36]!;
  let at = 37;
  let credential: AuthenticatorData["credential"] = null;
  try {
    if (flags & 0x40) {
      if (bytes.length < at + 18) fail("malformed");
      const aaguid = bytes.slice(at, at + 16);
      const idLength = (bytes[at + 16]! << 8) + bytes[at + 17]!;
      at += 18;
      if (idLength > 1023 || bytes.length < at + idLength) fail("malformed");
      const id = bytes.slice(at, at + idLength);
      at += idLength;
      const { value, end } = decodeCbor(bytes, at);
      if (!(value instanceof Map)) fail("malformed");
      credential = { aaguid, id, publicKey: bytes.slice(at, end), key: value as Map<number | string, CborValue> };
      at = end;
    }
    if (flags & 0x80) at = decodeCbor(bytes, at).end;
  } catch (error) {
    if (error instanceof CborError) fail("malformed");
    throw error;
  }
  if (at !== bytes.length) fail("malformed");
  const backupEligible = (flags & 0x08) !== 0;
  const backedUp = (flags & 0x10) !== 0;
  // Backed up but not eligible for backup is a contradiction (WebAuthn 6.1.3).
  if (backedUp && !backupEligible) fail("malformed");
  return {
    rpIdHash: bytes.slice(0, 32),
    userPresent: (flags & 0x01) !== 0,
    userVerified: (flags & 0x04) !== 0,
    backupEligible,
    backedUp,
    counter,
    credential,
  };
}

async function checkAuthenticatorData(data: AuthenticatorData, expected: Expectations): Promise<void> {
  if (!constantTimeEqual(data.rpIdHash, await sha256(utf8(expected.rpId)))) fail("rp-id");
  if (!data.userPresent) fail("user-presence");
  if (expected.requireUserVerification && !data.userVerified) fail("user-verification");
}

const uuidOf = (bytes: Uint8Array): string => {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Attestation formats a browser may send (WebAuthn 8); an unknown one is refused. */
const FORMATS = new Set(["none", "packed", "tpm", "android-key", "android-safetynet", "fido-u2f", "apple"]);

/**
 * Verifies a registration response (WebAuthn 7.1): client data (`webauthn.create`, challenge, origin), the
 * attestation object's authenticator data (RP ID hash, user presence, user verification when required, an attested
 * credential whose id is the response's and whose key is ES256, EdDSA or RS256), and the attestation statement:
 * `none` must be empty, `packed` self-attestation must verify with the credential's own key. Statements signed by an
 * attestation certificate (`packed` with `x5c`, `tpm`, `android-key`, ...) are not evaluated: the options ask for
 * attestation `none`, no trust anchors are kept, and browsers replace them with `none` for that conveyance anyway.
 *
 * @example
 * const info = await verifyRegistration(response, { challenge, origins: ["https://app.example"], rpId: "app.example", requireUserVerification: true });
 */
export async function verifyRegistration(
  response: { id: string; response: { clientDataJSON: string; attestationObject: string } },
  expected: Expectations,
): Promise<VerifiedRegistration> {
  const clientData = checkClientData(response.response.clientDataJSON, "webauthn.create", expected);
  let object: CborValue;
  try {
    object = decodeCborWhole(bytesOf(response.response.attestationObject));
  } catch (error) {
    if (error instanceof CborError) return fail("malformed");
    throw error;
  }
  if (!(object instanceof Map)) return fail("malformed");
  const fmt = object.get("fmt");
  const statement = object.get("attStmt");
  const authDataBytes = object.get("authData");
  if (typeof fmt !== "string" || !(statement instanceof Map) || !(authDataBytes instanceof Uint8Array))
    return fail("malformed");
  const authData = parseAuthenticatorData(authDataBytes);
  await checkAuthenticatorData(authData, expected);
  const credential = authData.credential ?? fail("malformed");
  if (base64url(credential.id) !== response.id) fail("malformed");
  const { alg, verify } = await verifierOf(credential.key);
  if (!FORMATS.has(fmt)) fail("attestation");
  if (fmt === "none" && statement.size > 0) fail("attestation");
  if (fmt === "packed" && !statement.has("x5c")) {
    const sig = statement.get("sig");
    if (statement.get("alg") !== alg || !(sig instanceof Uint8Array)) fail("attestation");
    const signed = concat(authDataBytes, await sha256(clientData));
    if (!(await verify(sig as Uint8Array, signed))) fail("attestation");
  }
  return {
    credentialId: response.id,
    publicKey: credential.publicKey,
    counter: authData.counter,
    aaguid: uuidOf(credential.aaguid),
    deviceType: authData.backupEligible ? "multiDevice" : "singleDevice",
    backedUp: authData.backedUp,
    userVerified: authData.userVerified,
  };
}

/**
 * Verifies an assertion (WebAuthn 7.2) against the stored COSE public key: client data (`webauthn.get`, challenge,
 * origin), authenticator data (RP ID hash, user presence, user verification when required) and the signature over
 * the authenticator data and the client data's SHA-256. The counter is the caller's to compare.
 *
 * @example
 * const { newCounter } = await verifyAssertion(response, storedCoseKey, expectations);
 */
export async function verifyAssertion(
  response: { response: { clientDataJSON: string; authenticatorData: string; signature: string } },
  publicKey: Uint8Array,
  expected: Expectations,
): Promise<VerifiedAssertion> {
  const clientData = checkClientData(response.response.clientDataJSON, "webauthn.get", expected);
  const authDataBytes = bytesOf(response.response.authenticatorData);
  const authData = parseAuthenticatorData(authDataBytes);
  await checkAuthenticatorData(authData, expected);
  let key: CborValue;
  try {
    key = decodeCborWhole(publicKey);
  } catch {
    throw new Error("A stored passkey public key cannot be read");
  }
  if (!(key instanceof Map)) throw new Error("A stored passkey public key cannot be read");
  const { verify } = await verifierOf(key);
  const signed = concat(authDataBytes, await sha256(clientData));
  if (!(await verify(bytesOf(response.response.signature), signed))) fail("signature");
  return { newCounter: authData.counter, backedUp: authData.backedUp, userVerified: authData.userVerified };
}
