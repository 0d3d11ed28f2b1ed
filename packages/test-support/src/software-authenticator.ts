/**
 * A WebAuthn authenticator in software, for HTTP-level passkey tests: real ES256, Ed25519 or RS256 keys (Web
 * Crypto), real CBOR attestation objects (`fmt: "none"`, or `packed` self-attestation) and real signed assertions, built the way a browser and a platform
 * authenticator build them. Each ceremony may be bent in one way (another origin, RP ID, no user verification, a
 * chosen counter, another user handle) so a test can show exactly one check refusing it.
 */

import { type Cbor, cbor, concat, encoder, sha256, uint32, b64url } from "./webauthn-bytes.ts";
import { COSE_ALG, newKey, type SoftwareAlgorithm, sign } from "./webauthn-keys.ts";

export { b64url, cbor, type Cbor } from "./webauthn-bytes.ts";
export type { SoftwareAlgorithm } from "./webauthn-keys.ts";

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

/** What a test may bend in one ceremony. */
export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  /** User verification (PIN, biometrics); default: the authenticator's `userVerification`. */
  uv?: boolean;
  /** User presence; default true. */
  up?: boolean;
  /** The `type` in the client data; default `webauthn.create` / `webauthn.get`. */
  type?: string;
  /** The challenge signed instead of the options' one. */
  challenge?: string;
  /** `crossOrigin: true` in the client data (a page framed by another origin). */
  crossOrigin?: boolean;
  /** Registration only: bends the attestation object (`fmt`, `attStmt`, `authData`) after it is made and signed. */
  editAttestation?: (object: Map<string, Cbor>) => void;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** Sign with this credential (its id, base64url) instead of the first one the options allow. */
  credentialId?: string;
  /** The signature counter to report; default: the credential's counter plus one (or 0 with `counter: 0` keys). */
  counter?: number;
  /** The user handle to send (base64url); null sends none. Default: the one stored with the credential. */
  userHandle?: string | null;
}

interface StoredCredential {
  id: Uint8Array;
  keys: CryptoKeyPair;
  algorithm: SoftwareAlgorithm;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** A JSON object as the browser hands it to `@simplewebauthn/browser`. */
export type CredentialJson = {
  id: string;
  rawId: string;
  type: "public-key";
  response: Record<string, unknown>;
  clientExtensionResults: Record<string, never>;
};

/**
 * @example
 * const authenticator = new SoftwareAuthenticator({ origin: "https://app.example" });
 * const response = await authenticator.create(options); // POST /passkey/register/verify { response }
 * const assertion = await authenticator.get(signInOptions);
 */
export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];
  private readonly origin: string;
  private readonly userVerification: boolean;
  /** False: the authenticator keeps no counter (reports 0 every time, as synced passkeys do). */
  private readonly counts: boolean;
  private readonly backedUp: boolean;
  private readonly algorithm: SoftwareAlgorithm;
  private readonly attestation: "none" | "packed";

  constructor(options: {
    origin: string;
    userVerification?: boolean;
    counts?: boolean;
    backedUp?: boolean;
    /** The key type of new credentials; default ES256. */
    algorithm?: SoftwareAlgorithm;
    /** `packed`: self-attestation signed with the new credential's own key; default `none`. */
    attestation?: "none" | "packed";
  }) {
    this.origin = options.origin;
    this.algorithm = options.algorithm ?? "ES256";
    this.attestation = options.attestation ?? "none";
    this.userVerification = options.userVerification ?? true;
    this.counts = options.counts ?? true;
    this.backedUp = options.backedUp ?? false;
  }

  private async clientData(type: string, challenge: string, origin: string, crossOrigin = false): Promise<Uint8Array> {
    return encoder.encode(JSON.stringify({ type, challenge, origin, crossOrigin }));
  }

  private flags(o: CeremonyOverrides, attested: boolean): number {
    let flags = 0;
    if (o.up ?? true) flags |= FLAG_UP;
    if (o.uv ?? this.userVerification) flags |= FLAG_UV;
    if (this.backedUp) flags |= FLAG_BE | FLAG_BS;
    if (attested) flags |= FLAG_AT;
    return flags;
  }

  /** `navigator.credentials.create()`: a new key of the authenticator's algorithm, attested as configured. */
  async create(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    o: CeremonyOverrides = {},
  ): Promise<CredentialJson> {
    const rpId = o.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { keys, cose } = await newKey(this.algorithm);
    const id = crypto.getRandomValues(new Uint8Array(32));
    const counter = this.counts ? 1 : 0;
    const authData = concat(
      await sha256(encoder.encode(rpId)),
      new Uint8Array([this.flags(o, true)]),
      uint32(counter),
      new Uint8Array(16),
      new Uint8Array([0, id.length]),
      id,
      cose,
    );
    const clientData = await this.clientData(
      o.type ?? "webauthn.create",
      o.challenge ?? options.challenge,
      o.origin ?? this.origin,
      o.crossOrigin,
    );
    const statement =
      this.attestation === "packed"
        ? new Map<string, Cbor>([
            ["alg", COSE_ALG[this.algorithm]],
            ["sig", await sign(this.algorithm, keys.privateKey, concat(authData, await sha256(clientData)))],
          ])
        : new Map<string, Cbor>();
    const object = new Map<string, Cbor>([
      ["fmt", this.attestation],
      ["attStmt", statement],
      ["authData", authData],
    ]);
    o.editAttestation?.(object);
    const attestationObject = cbor(object);
    this.credentials.push({ id, keys, algorithm: this.algorithm, rpId, userHandle: options.user.id, counter });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(attestationObject),
        transports: ["internal", "hybrid"],
      },
      clientExtensionResults: {},
    };
  }

  /** `navigator.credentials.get()`: an assertion signed with a stored key (the first the options allow). */
  async get(
    options: { challenge: string; rpId?: string; allowCredentials?: { id: string }[] },
    o: AssertionOverrides = {},
  ): Promise<CredentialJson> {
    const allowed = options.allowCredentials ?? [];
    const credential = this.credentials.find((c) =>
      o.credentialId !== undefined
        ? b64url(c.id) === o.credentialId
        : allowed.length === 0 || allowed.some((a) => a.id === b64url(c.id)),
    );
    if (!credential) throw new Error("no credential of this authenticator fits the options");
    const rpId = o.rpId ?? options.rpId ?? credential.rpId;
    const counter = o.counter ?? (this.counts ? credential.counter + 1 : 0);
    credential.counter = Math.max(credential.counter, counter);
    const authData = concat(
      await sha256(encoder.encode(rpId)),
      new Uint8Array([this.flags(o, false)]),
      uint32(counter),
    );
    const clientData = await this.clientData(
      o.type ?? "webauthn.get",
      o.challenge ?? options.challenge,
      o.origin ?? this.origin,
    );
    const signed = concat(authData, await sha256(clientData));
    const signature = await sign(credential.algorithm, credential.keys.privateKey, signed);
    const userHandle = o.userHandle === undefined ? credential.userHandle : o.userHandle;
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
    };
  }
}
