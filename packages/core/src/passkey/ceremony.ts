import { WebAuthnFailure } from "./webauthn/cose.ts";
import { verifyRegistration } from "./webauthn/verify.ts";
import { originOf } from "../config/origin.ts";
import { AuthError } from "../errors/errors.ts";
import { base64url, randomId } from "../crypto/crypto.ts";
import type { AuthContext } from "../context/context.ts";
import type { PasskeyRecord, VerificationRecord } from "../ports/records.ts";
import type { PasskeyStore } from "../ports/store.ts";
import { companionCookie } from "../session/session.ts";
import type { ResolvedPasskeyOptions } from "./options.ts";
import { challengeInvalid, invalidResponse, type PasskeyCeremony, type RegistrationResponse } from "./shapes.ts";

/** The verification-row identifier prefixes of issued challenges (one row each, random suffix). */
export const REGISTER_PREFIX = "passkey-register:";
export const SIGN_IN_PREFIX = "passkey-sign-in:";
export const SIGN_UP_PREFIX = "passkey-sign-up:";

/**
 * What every passkey ceremony shares: the context, the options, the store port, the origins responses may come
 * from, and the challenge's life (issued as a verification row found only through the asking client's token, spent
 * before the response is looked at).
 */
export class PasskeyCeremonies {
  /** The origins responses may come from. */
  readonly origins: string[];

  constructor(
    readonly ctx: AuthContext,
    readonly options: ResolvedPasskeyOptions,
    readonly port: PasskeyStore,
  ) {
    const base = originOf(ctx.config.baseUrl);
    this.origins = options.origins ?? (base === null ? [] : [base]);
  }

  /** The challenge cookie's name: the session cookie's, `passkey` for `session`. */
  get challengeCookieName(): string {
    return this.ctx.config.cookies.name.replace(/session$/, "passkey");
  }

  /** Starts a ceremony: its challenge stored (with `extra`) under a new row of `prefix`, its token and cookie. */
  async issue<Options extends { challenge: string }>(
    prefix: string,
    userId: string | null,
    options: Options,
    extra: Record<string, string | null> = {},
  ): Promise<PasskeyCeremony<Options>> {
    const { ctx } = this;
    const ttl = this.options.challengeMs;
    const identifier = `${prefix}${randomId(ctx.random)}`;
    const token = await ctx.secrets.issueToken(
      identifier,
      userId,
      ttl,
      JSON.stringify({ ...extra, challenge: options.challenge }),
    );
    const expiresAt = new Date(ctx.clock.now() + ttl).toISOString();
    const cookie = companionCookie(ctx.config, this.challengeCookieName, token, Math.floor(ttl / 1000));
    return { options, token, expiresAt, cookie };
  }

  /**
   * Spends the challenge row of `token` (of this ceremony's kind): unknown, expired, another kind or already spent
   * is 400 `PASSKEY_CHALLENGE_INVALID`. Spent before the response is verified, so a failed attempt burns it too.
   */
  async spend(
    token: unknown,
    prefix: string,
  ): Promise<{ row: VerificationRecord; challenge: string; payload: Record<string, unknown> }> {
    const { ctx } = this;
    let row: VerificationRecord;
    try {
      row = await ctx.secrets.findToken(typeof token === "string" ? token : "", prefix);
    } catch (error) {
      if (error instanceof AuthError && error.code === "INVALID_TOKEN") throw challengeInvalid();
      throw error;
    }
    if (!(await ctx.store.verifications.consume(row.id))) throw challengeInvalid();
    try {
      const payload = JSON.parse(row.payload ?? "") as Record<string, unknown>;
      const { challenge } = payload;
      if (typeof challenge !== "string") throw challengeInvalid();
      return { row, challenge, payload };
    } catch {
      throw challengeInvalid();
    }
  }

  /**
   * Verifies a registration response against `challenge` (origin, RP ID hash, user presence, user verification as
   * configured, the attestation's own signature when it has one): the passkey row it makes for `userId`.
   */
  async verifiedPasskey(
    userId: string,
    response: RegistrationResponse,
    challenge: string,
    name: string | null,
    now: Date,
  ): Promise<PasskeyRecord> {
    const { ctx, options } = this;
    let info: Awaited<ReturnType<typeof verifyRegistration>>;
    try {
      info = await verifyRegistration(response, {
        challenge,
        origins: this.origins,
        rpId: options.rpId,
        requireUserVerification: options.userVerification === "required",
      });
    } catch (error) {
      if (error instanceof WebAuthnFailure) throw invalidResponse(error.reason);
      throw error;
    }
    return {
      id: randomId(ctx.random),
      userId,
      credentialId: info.credentialId,
      publicKey: base64url(info.publicKey),
      counter: info.counter,
      transports: response.response.transports,
      deviceType: info.deviceType,
      backedUp: info.backedUp,
      aaguid: info.aaguid,
      name,
      createdAt: now,
      lastUsedAt: null,
    };
  }
}
