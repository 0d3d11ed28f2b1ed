import { AuthError } from "../errors/errors.ts";
import { hashSecret, isTokenShaped, randomId, randomToken } from "../crypto/crypto.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { VerificationRecord } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";

const invalidToken = () => new AuthError("INVALID_TOKEN", "The link is invalid or has expired");

/**
 * Single-use link tokens (email verification, password reset, account deletion): 32 random bytes, only the
 * SHA-256 stored, one live token per identifier, consumed atomically. OTP codes build on the same rows.
 */
export class OneTimeSecrets {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** Issues a new token for `identifier` (earlier ones die) and returns the plain token. */
  async issueToken(
    identifier: string,
    userId: string | null,
    ttlMs: number,
    payload: string | null = null,
  ): Promise<string> {
    const token = randomToken(this.random, 32);
    await this.issue(identifier, hashSecret(token), userId, ttlMs, payload);
    return token;
  }

  /** Stores a hashed secret for `identifier`, replacing earlier ones. */
  async issue(
    identifier: string,
    valueHash: string,
    userId: string | null,
    ttlMs: number,
    payload: string | null,
  ): Promise<VerificationRecord> {
    const now = this.clock.now();
    const record: VerificationRecord = {
      id: randomId(this.random),
      identifier,
      valueHash,
      attemptCount: 0,
      expiresAt: new Date(now + ttlMs),
      createdAt: new Date(now),
      userId,
      payload,
    };
    await this.store.verifications.issue(record);
    return record;
  }

  /**
   * Consumes a link token whose identifier starts with `identifierPrefix`. Exactly one of N concurrent
   * callers wins; everything else (unknown, other purpose, expired, lost race) is INVALID_TOKEN.
   */
  consumeToken(token: string, identifierPrefix: string): Promise<VerificationRecord> {
    return this.consumeMatching(token, (identifier) => identifier.startsWith(identifierPrefix));
  }

  /**
   * Like `consumeToken`, but the row's identifier must equal `identifier`. The check runs before the
   * row is consumed, so a token submitted for the wrong target is refused without being burnt.
   */
  consumeTokenFor(token: string, identifier: string): Promise<VerificationRecord> {
    return this.consumeMatching(token, (candidate) => candidate === identifier);
  }

  /**
   * The live row of a link token whose identifier starts with `identifierPrefix`, without spending it: the caller
   * consumes it (`verifications.consume(row.id)`) in the same transaction as the writes the token pays for, so a
   * failed write leaves it usable. Unknown, other purpose or expired: INVALID_TOKEN.
   */
  async findToken(token: string, identifierPrefix: string): Promise<VerificationRecord> {
    const found = await this.find(token, (identifier) => identifier.startsWith(identifierPrefix));
    if (found.expiresAt.getTime() <= this.clock.now()) throw invalidToken();
    return found;
  }

  /** `findToken` for the exact `identifier` (see `consumeTokenFor`): the live row, not spent. */
  async findTokenFor(token: string, identifier: string): Promise<VerificationRecord> {
    const found = await this.find(token, (candidate) => candidate === identifier);
    if (found.expiresAt.getTime() <= this.clock.now()) throw invalidToken();
    return found;
  }

  private async find(token: string, accepts: (identifier: string) => boolean): Promise<VerificationRecord> {
    if (typeof token !== "string" || !isTokenShaped(token)) throw invalidToken();
    const found = await this.store.verifications.findByValueHash(hashSecret(token));
    if (!found || !accepts(found.identifier)) throw invalidToken();
    return found;
  }

  private async consumeMatching(token: string, accepts: (identifier: string) => boolean): Promise<VerificationRecord> {
    const invalid = invalidToken;
    const found = await this.find(token, accepts);
    const consumed = await this.store.verifications.consume(found.id);
    if (!consumed) throw invalid();
    if (consumed.expiresAt.getTime() <= this.clock.now()) throw invalid();
    return consumed;
  }
}
