import { AuthConfigError } from "../errors/errors.ts";
import { applySchema, defaulted, flag, optional, required, shapeOf, type InputOf } from "../config/schema.ts";

/** What the authenticator must prove of the person: `"required"` (PIN, fingerprint, face) or `"preferred"`. */
export type PasskeyUserVerification = "required" | "preferred";

/**
 * `passkeys()` options with defaults filled.
 *
 * @example
 * const { rpId, userVerification } = resolvePasskeyOptions({ rpId: "example.com", rpName: "Example" });
 */
export interface ResolvedPasskeyOptions {
  rpId: string;
  rpName: string;
  /** The origins a response may come from (web origins and `android:apk-key-hash:` app origins); null: `baseUrl`'s. */
  origins: string[] | null;
  userVerification: PasskeyUserVerification;
  /** How long a challenge (registration or sign-in options) lives. */
  challengeMs: number;
  /** Sign-up with a passkey and an email, no password (`POST /passkey/sign-up/options` and `/verify`). */
  allowPasskeyOnlyAccounts: boolean;
}

const ANDROID_ORIGIN = /^android:apk-key-hash:[A-Za-z0-9_-]{43}$/;
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A web origin (`https://app.example.com`, or `http://localhost...`) exactly as browsers write it, or an Android app's. */
function checkOrigin(value: unknown, field: string): void {
  if (typeof value !== "string") throw new AuthConfigError(field, "must be a string");
  if (ANDROID_ORIGIN.test(value)) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthConfigError(field, "must be an origin (`https://app.example.com`) or `android:apk-key-hash:...`");
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== value)
    throw new AuthConfigError(field, "must be an origin (`https://app.example.com`) or `android:apk-key-hash:...`");
}

/** The one definition of `passkeys({...})`'s options: type, default, check, docs row (docs/options.md). */
export const PASSKEYS_SCHEMA = {
  /**
   * the relying party id: the site's registrable host name (`example.com`) or a host under it; passkeys work on
   * that host and its subdomains, and cannot move to another one later
   */
  rpId: required<string>({
    check: (value, field) => {
      if (typeof value !== "string" || !HOST_NAME.test(value))
        throw new AuthConfigError(field, "must be a lower-case host name without scheme or port (`example.com`)");
    },
  }),
  /** the name authenticators show beside the account ("Acme") */
  rpName: required<string>({
    check: (value, field) => {
      if (typeof value !== "string" || value.trim() === "" || value.length > 64)
        throw new AuthConfigError(field, "must be a non-empty string of at most 64 characters");
    },
  }),
  /**
   * the origins a passkey response may come from: web origins on `rpId` or its subdomains, and Android apps
   * (`android:apk-key-hash:<base64url SHA-256 of the signing certificate>`)
   * @defaultValue the origin of `baseUrl`
   */
  origins: optional<string[]>({
    check: (value, field) => {
      if (!Array.isArray(value) || value.length === 0) throw new AuthConfigError(field, "must be a non-empty array");
      for (const [i, origin] of value.entries()) checkOrigin(origin, `${field}[${i}]`);
    },
  }),
  /**
   * `"required"`: every registration and sign-in must prove the person (PIN, fingerprint, face), and a passkey
   * sign-in then counts as both factors; `"preferred"`: a sign-in without it goes through the second step
   * (`twoFactor()`) like a password
   */
  userVerification: defaulted<PasskeyUserVerification>("required", {
    check: (value, field) => {
      if (value !== "required" && value !== "preferred")
        throw new AuthConfigError(field, 'must be "required" or "preferred"');
    },
  }),
  /**
   * sign-up with a passkey and an email, without a password (`POST /passkey/sign-up/options` and
   * `/passkey/sign-up/verify`): the account signs in at once and gets the verification link; a first proof of the
   * mailbox from another browser removes what was set up before it, the passkey included (docs/passkeys.md).
   * Refused with `emailVerification.requireVerifiedForSignIn`
   */
  allowPasskeyOnlyAccounts: flag(false),
};

/**
 * `passkeys({...})` options.
 *
 * @example
 * const options: PasskeyOptions = { rpId: "example.com", rpName: "Example", origins: ["https://example.com"] };
 */
export type PasskeyOptions = InputOf<typeof PASSKEYS_SCHEMA>;

/** Every key `passkeys({...})` accepts (from `PASSKEYS_SCHEMA`). */
export const PASSKEYS_OPTION_SHAPE = shapeOf(PASSKEYS_SCHEMA);

/** A challenge lives 5 minutes (issue 44). */
const CHALLENGE_MS = 5 * 60_000;

/**
 * Validates `passkeys()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolvePasskeyOptions({ rpId: "example.com", rpName: "Example" }).userVerification; // "required"
 */
export function resolvePasskeyOptions(options: PasskeyOptions): ResolvedPasskeyOptions {
  const o = applySchema(PASSKEYS_SCHEMA, options, "passkeys");
  return {
    rpId: o.rpId,
    rpName: o.rpName,
    origins: o.origins ? [...new Set(o.origins)] : null,
    userVerification: o.userVerification,
    challengeMs: CHALLENGE_MS,
    allowPasskeyOnlyAccounts: o.allowPasskeyOnlyAccounts,
  };
}
