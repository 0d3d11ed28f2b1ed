import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  base64url,
  constantTimeEqual,
  hashSecret,
  hmacSha256With,
  randomId,
  randomToken,
  utf8,
} from "../crypto/crypto.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";
import { companionCookie, type CookieDescriptor, type DeviceCredential } from "../session/session.ts";

export type { DeviceCredential };

/** A device cookie that checked out for an account: the browser (or Bearer client) it names. */
export interface KnownDevice {
  userId: string;
  deviceId: string;
}

/** The verification-row identifier of one device of one account (one row per account and browser). */
function deviceIdentifier(userId: string, deviceId: string): string {
  return `device:${userId}:${deviceId}`;
}

/** The lockout key of a known device: failures there lock this device only (counted apart from the account). */
export function deviceLockKey(device: KnownDevice): string {
  return `device:${device.userId}:${device.deviceId}`;
}

/** No user has it: the id whose accounts `knows` reads for an address without an account. */
const NO_USER_ID = "~no-user";

const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a successful sign-in gives the
 * browser `<deviceId>.<secret>.<mac>`, where `mac` is an HMAC (key derived from `secret` option) over the account's
 * id, the device id, the secret and a fingerprint of the account's password hash. The store keeps one verification
 * row per account and device (`device:<userId>:<deviceId>`, the SHA-256 of the secret, deleted with the user).
 *
 * - Bound to the account: the MAC names the user, so a cookie of one account is nothing for another.
 * - Rotated on use: each sign-in that presents it replaces the row's secret (the `issue` upsert), so the previous
 *   value stops working.
 * - Revocable: deleting the row revokes one device; a password change or reset changes the fingerprint, so every
 *   device cookie of the account stops verifying in the same write that changes the password (no window, no race).
 */
export class DeviceCookies {
  private readonly mac: (text: string) => Uint8Array;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.mac = hmacSha256With(hmac(sha256, utf8(config.secret), utf8("latchkey/device-cookies v1")));
  }

  get enabled(): boolean {
    return this.config.deviceCookies.enabled;
  }

  private signature(userId: string, deviceId: string, secret: string, passwordHash: string | null): string {
    const fingerprint = hashSecret(`password:${passwordHash ?? ""}`);
    return base64url(this.mac(`${userId}\u0000${deviceId}\u0000${secret}\u0000${fingerprint}`));
  }

  /**
   * The device a token names for `userId`, when the token is well formed, signed for this account and its current
   * password, and its row is live; else null (a junk token costs one HMAC and no store call).
   */
  async recognise(token: string, userId: string, passwordHash: string | null): Promise<KnownDevice | null> {
    if (!this.enabled || typeof token !== "string" || token.length > 200) return null;
    const [deviceId, secret, mac, extra] = token.split(".");
    if (extra !== undefined || !deviceId || !secret || !mac) return null;
    if (!DEVICE_ID.test(deviceId) || !SECRET.test(secret)) return null;
    if (!constantTimeEqual(mac, this.signature(userId, deviceId, secret, passwordHash))) return null;
    const row = await this.store.verifications.findByValueHash(hashSecret(secret));
    if (!row || row.identifier !== deviceIdentifier(userId, deviceId) || row.userId !== userId) return null;
    if (row.expiresAt.getTime() <= this.clock.now()) return null;
    return { userId, deviceId };
  }

  /**
   * Whether `token` is a live device token of the account `userId` (null: an address without an account, always
   * false). The account's credential is read for null too, so the work does not tell the two apart (the email send
   * limits ask this for every address, registered or not).
   */
  async knows(token: string, userId: string | null): Promise<boolean> {
    const accounts = await this.store.accounts.listByUser(userId ?? NO_USER_ID);
    if (userId === null) return false;
    const credential = accounts.find((a) => a.providerId === "credential" && a.passwordHash);
    return (await this.recognise(token, userId, credential?.passwordHash ?? null)) !== null;
  }

  /**
   * A new device token for the account: for `device` (rotation: its row gets a new secret, the old value dies) or
   * for a new device id. Null with device cookies off.
   */
  async issue(
    userId: string,
    passwordHash: string | null,
    device: KnownDevice | null,
  ): Promise<DeviceCredential | null> {
    if (!this.enabled) return null;
    const deviceId = device?.deviceId ?? randomToken(this.random, 16);
    const secret = randomToken(this.random, 32);
    const { expiresInMs } = this.config.deviceCookies;
    const now = this.clock.now();
    await this.store.verifications.issue({
      id: randomId(this.random),
      identifier: deviceIdentifier(userId, deviceId),
      valueHash: hashSecret(secret),
      attemptCount: 0,
      expiresAt: new Date(now + expiresInMs),
      createdAt: new Date(now),
      userId,
      payload: null,
    });
    const token = `${deviceId}.${secret}.${this.signature(userId, deviceId, secret, passwordHash)}`;
    return { deviceId, token, cookie: this.cookie(token, Math.floor(expiresInMs / 1000)) };
  }

  /** Revokes one device of an account (its row goes; the token stops verifying on every instance at once). */
  async revoke(device: KnownDevice): Promise<void> {
    await this.store.verifications.deleteByIdentifier(deviceIdentifier(device.userId, device.deviceId));
  }

  /** The device cookie: HttpOnly, Secure (`__Host-` unless `cookies.domain`), SameSite as the session cookie. */
  cookie(value: string, maxAge: number): CookieDescriptor {
    return companionCookie(this.config, this.config.deviceCookies.name, value, maxAge);
  }
}
