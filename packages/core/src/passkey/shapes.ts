import type { AuthenticatorTransport } from "./webauthn/options.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { base64url, fromBase64url, utf8 } from "../crypto/crypto.ts";
import type { PasskeyRecord } from "../ports/records.ts";
import type { CookieDescriptor } from "../session/session.ts";

// What passkey requests and answers look like: the inputs of the service, the shape checks of a browser's
// `PublicKeyCredential` JSON (sizes capped before anything is decoded), and a passkey as its owner sees it.

/** Longest accepted base64url fields: a credential id (1023 bytes at most), client data, attestation, signature. */
const MAX_ID = 1400;
const MAX_FIELD = 32_768;
/** Longest passkey name. */
const MAX_NAME = 64;

/** Transports a browser may report (WebAuthn Level 3); anything else is dropped. */
const TRANSPORTS = new Set<string>(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

/**
 * A started ceremony: the options for `navigator.credentials.create()` / `.get()`, and the single-use challenge
 * token that binds it to the client that asked (its HttpOnly cookie, or `challengeToken` for clients that keep
 * tokens themselves).
 */
export interface PasskeyCeremony<Options> {
  options: Options;
  /** The challenge's token: only its SHA-256 is stored; single-use; dies at `expiresAt`. */
  token: string;
  expiresAt: string;
  cookie: CookieDescriptor;
}

/** A passkey as its owner sees it (never the public key). */
export interface PasskeyView {
  id: string;
  name: string | null;
  /** The credential id (base64url), for the browser's `signalUnknownCredential` and the like. */
  credentialId: string;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  transports: string[];
  aaguid: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * `POST /passkey/register/verify`: the browser's `navigator.credentials.create()` answer (JSON, as
 * `@simplewebauthn/browser` gives it) and the challenge token.
 */
export interface RegisterPasskeyInput {
  token: string;
  response: unknown;
  name?: string | null;
}

/** `POST /passkey/sign-up/options`: the new account's email and, optionally, its display name. */
export interface PasskeySignUpOptionsInput {
  email: string;
  name?: string | null;
}

/**
 * `POST /passkey/sign-up/verify`: the browser's `navigator.credentials.create()` answer to the sign-up options, the
 * challenge token, and optionally the passkey's name and `rememberMe`.
 */
export interface PasskeySignUpInput {
  token: string;
  response: unknown;
  name?: string | null;
  rememberMe?: boolean;
}

/** `POST /passkey/authenticate/verify`: the browser's `navigator.credentials.get()` answer and the challenge token. */
export interface PasskeySignInInput {
  token: string;
  response: unknown;
  /** False: a session cookie without Max-Age (ends with the browser) and the short session lifetime. Default true. */
  rememberMe?: boolean;
}

export const challengeInvalid = () =>
  new AuthError(
    "PASSKEY_CHALLENGE_INVALID",
    "The passkey request expired, was already used or was started elsewhere: start again",
  );

export const unknownPasskey = () => new AuthError("UNKNOWN_PASSKEY", "This passkey is not registered here");

export const invalidResponse = (reason: string) =>
  new AuthError("INVALID_PASSKEY_RESPONSE", `The passkey response failed verification (${reason})`);

/** A base64url string of at most `max` characters, or a 400 naming `field`. */
function b64Field(value: unknown, field: string, max: number, optional = false): string | undefined {
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > max || fromBase64url(value) === null)
    throw invalidField(field, `${field} must be base64url of at most ${max} characters`);
  return value;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalidField(field, `${field} must be an object`);
  return value as Record<string, unknown>;
}

/** A registration answer (`PublicKeyCredential.toJSON()` of `navigator.credentials.create()`), shape-checked. */
export interface RegistrationResponse {
  id: string;
  response: { clientDataJSON: string; attestationObject: string; transports: AuthenticatorTransport[] };
}

/** A sign-in answer (`PublicKeyCredential.toJSON()` of `navigator.credentials.get()`), shape-checked. */
export interface AssertionResponse {
  id: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
}

/** The shape of a `PublicKeyCredential` JSON answer, checked before anything is decoded (sizes capped). */
function credentialShape(value: unknown): {
  id: string;
  inner: Record<string, unknown>;
  clientDataJSON: string;
} {
  const outer = record(value, "response");
  const id = b64Field(outer.id, "response.id", MAX_ID) as string;
  const rawId = b64Field(outer.rawId, "response.rawId", MAX_ID) as string;
  if (rawId !== id) throw invalidField("response.rawId", "response.rawId must equal response.id");
  if (outer.type !== "public-key") throw invalidField("response.type", 'response.type must be "public-key"');
  const inner = record(outer.response, "response.response");
  const clientDataJSON = b64Field(inner.clientDataJSON, "response.response.clientDataJSON", MAX_FIELD) as string;
  return { id, inner, clientDataJSON };
}

export function registrationShape(value: unknown): RegistrationResponse {
  const { id, inner, clientDataJSON } = credentialShape(value);
  b64Field(inner.attestationObject, "response.response.attestationObject", MAX_FIELD);
  const transports = inner.transports;
  if (transports !== undefined && (!Array.isArray(transports) || transports.length > 16))
    throw invalidField("response.response.transports", "response.response.transports must be a short array");
  return {
    id,
    response: {
      clientDataJSON,
      attestationObject: inner.attestationObject as string,
      transports: ((transports ?? []) as unknown[]).filter(
        (t): t is AuthenticatorTransport => typeof t === "string" && TRANSPORTS.has(t),
      ),
    },
  };
}

export function assertionShape(value: unknown): AssertionResponse {
  const { id, inner, clientDataJSON } = credentialShape(value);
  b64Field(inner.authenticatorData, "response.response.authenticatorData", MAX_FIELD);
  b64Field(inner.signature, "response.response.signature", MAX_FIELD);
  const userHandle = b64Field(inner.userHandle, "response.response.userHandle", 128, true);
  return {
    id,
    response: {
      clientDataJSON,
      authenticatorData: inner.authenticatorData as string,
      signature: inner.signature as string,
      ...(userHandle === undefined ? {} : { userHandle }),
    },
  };
}

/** A passkey's name: trimmed, 1 to 64 characters. */
export function nameOf(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "" || value.trim().length > MAX_NAME)
    throw invalidField("name", `name must be 1 to ${MAX_NAME} characters`);
  return value.trim();
}

/** A display name: trimmed, at most 256 characters (the user's `name`), or null. */
export function displayNameOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.trim().length > 256)
    throw invalidField("name", "name must be a string of at most 256 characters");
  return value.trim() === "" ? null : value.trim();
}

/** A credential descriptor of a stored passkey, for `excludeCredentials` / `allowCredentials`. */
export const descriptorOf = (p: PasskeyRecord) => ({
  id: p.credentialId,
  type: "public-key" as const,
  transports: p.transports.filter((t): t is AuthenticatorTransport => TRANSPORTS.has(t)),
});

/** The WebAuthn user handle of a user: their id's UTF-8 bytes (base64url in JSON). Never their email. */
export function userHandleOf(userId: string): string {
  return base64url(utf8(userId));
}

export function viewOf(p: PasskeyRecord): PasskeyView {
  return {
    id: p.id,
    name: p.name,
    credentialId: p.credentialId,
    deviceType: p.deviceType,
    backedUp: p.backedUp,
    transports: [...p.transports],
    aaguid: p.aaguid,
    createdAt: p.createdAt.toISOString(),
    lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
  };
}
