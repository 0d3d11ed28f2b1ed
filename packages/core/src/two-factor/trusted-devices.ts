import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  base64url,
  constantTimeEqual,
  fromBase64url,
  fromUtf8,
  hashSecret,
  hmacSha256With,
  utf8,
} from "../crypto/crypto.ts";
import type { TwoFactorRecord } from "../ports/records.ts";

/** What a trusted-device token is signed over besides its user and times: the account's state when it was made. */
export interface TrustBinding {
  record: TwoFactorRecord;
  /** The account's password hash (null without a password): a change or reset ends every trusted device. */
  passwordHash: string | null;
}

const SEPARATOR = "\u0000";

/**
 * Trusted-device tokens (`POST /two-factor/verify` with `trustDevice: true`): `<user>.<issued>.<expires>.<mac>`,
 * the MAC an HMAC-SHA-256 (key derived from the auth `secret` for this purpose alone) over the user's id, the two
 * times and fingerprints of the account's sealed TOTP key and password hash. Nothing is stored per device:
 *
 * - `trustDeviceFor` ends it (`expires`);
 * - disabling two-factor deletes the key, and enabling it again makes a new one: the fingerprint no longer matches;
 * - a password change or reset changes the password fingerprint;
 * - signing out everywhere moves the record's `trustedAfter` past `issued`.
 *
 * @example
 * const token = trust.issue(userId, binding, now, 30 * 86_400_000);
 * trust.verify(token, userId, binding, now); // true until one of the above
 */
export class TrustedDevices {
  private readonly mac: (text: string) => Uint8Array;

  constructor(secret: string) {
    this.mac = hmacSha256With(hmac(sha256, utf8(secret), utf8("latchkey/two-factor-trusted-device v1")));
  }

  issue(userId: string, binding: TrustBinding, now: number, forMs: number): { token: string; expiresAt: Date } {
    const issued = now;
    const expires = now + forMs;
    const user = base64url(utf8(userId));
    const token = `${user}.${issued}.${expires}.${this.signature(userId, issued, expires, binding)}`;
    return { token, expiresAt: new Date(expires) };
  }

  /** Whether `token` is a live trusted-device token of `userId` for the account as it is now. */
  verify(token: string, userId: string, binding: TrustBinding, now: number): boolean {
    if (typeof token !== "string" || token.length > 400) return false;
    const [user, issuedText, expiresText, mac, extra] = token.split(".");
    if (extra !== undefined || user === undefined || issuedText === undefined || expiresText === undefined)
      return false;
    if (mac === undefined) return false;
    const decoded = fromBase64url(user);
    if (decoded === null || fromUtf8(decoded) !== userId) return false;
    if (!/^[0-9]{1,15}$/.test(issuedText) || !/^[0-9]{1,15}$/.test(expiresText)) return false;
    const issued = Number(issuedText);
    const expires = Number(expiresText);
    if (!constantTimeEqual(mac, this.signature(userId, issued, expires, binding))) return false;
    if (expires <= now) return false;
    const { trustedAfter } = binding.record;
    return trustedAfter === null || issued > trustedAfter.getTime();
  }

  private signature(userId: string, issued: number, expires: number, binding: TrustBinding): string {
    const key = hashSecret(`totp:${binding.record.secret}`);
    const password = hashSecret(`password:${binding.passwordHash ?? ""}`);
    return base64url(this.mac([userId, issued, expires, key, password].join(SEPARATOR)));
  }
}
