import { AuthError } from "../errors/errors.ts";
import { normalizeEmail, resolveCallbackUrl, withQuery } from "../kernel/validation.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { inTransaction } from "../context/transaction.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { isHookRefusal } from "../hooks/index.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import { emit } from "../kernel/emit.ts";

/**
 * The verification-row identifier of a link token sent to `email` (one live token per address).
 *
 * @example
 * await store.verifications.findByIdentifier(verificationLinkIdentifier("ada@example.com"));
 */
export function verificationLinkIdentifier(email: string): string {
  return `email-verification-link:${email}`;
}

const invalidToken = () => new AuthError("INVALID_TOKEN", "The link is invalid or has expired");

/**
 * Link-token email verification: a single-use token emailed as a link (templates `verification.html` and
 * `verification.txt`); consuming it verifies the email and signs the user in.
 *
 * @example
 * await core.emailVerification.send({ email: "ada@example.com" }, SERVER_CALL);
 * const { user, session, credentials } = await core.emailVerification.verify({ email, token }, SERVER_CALL);
 */
export class EmailVerificationService {
  constructor(private readonly ctx: AuthContext) {}

  /** Where the emailed link points: the request's trusted `callbackUrl`, else the override, else baseUrl + callbackPath. */
  private linkTarget(callbackUrl: string | null | undefined): string {
    const { config } = this.ctx;
    const fallback =
      config.emailVerification.callbackUrlOverride ?? config.baseUrl + config.emailVerification.callbackPath;
    return resolveCallbackUrl(config, callbackUrl, fallback);
  }

  /**
   * Sign-up's verification email (`requireVerifiedForSignIn`): within the send limits, issues a token to the new
   * user and emails the link; past them sends nothing (the account exists either way, and
   * `/send-verification-email` answers 429 with the wait). Sign-up of a taken address does the same store work
   * (`EmailPasswordService`'s notice), so the two cannot be told apart.
   */
  async sendFor(user: UserRecord, meta: RequestMeta): Promise<void> {
    // A brand-new account has no known device: asked as for the taken address (null), the same work either way.
    const refused = await this.ctx.sendLimits.admit("verification-link", user.email, meta, null);
    if (refused) await this.sendNothing(user.email, meta);
    else await this.issueLink(user, undefined, meta);
  }

  /**
   * The store work of a link send without a link: the verification write and the `OtpRequested` event (an audit
   * row with auditLog()) that `issueLink` makes, so timing does not tell a send from none (review fix 8).
   */
  private async sendNothing(email: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    await ctx.store.verifications.deleteByIdentifier(verificationLinkIdentifier(email));
    await emit(ctx, "OtpRequested", { identifier: email, purpose: "email-verification-link" }, meta);
  }

  /** Issues a token to a known user (earlier tokens die) and emails the link in the background. */
  private async issueLink(user: UserRecord, callbackUrl: string | null | undefined, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const { expiresInMs } = ctx.config.emailVerification;
    const target = this.linkTarget(callbackUrl);
    const token = await ctx.secrets.issueToken(verificationLinkIdentifier(user.email), user.id, expiresInMs);
    const at = new Date(ctx.clock.now());
    const base = { identifier: user.email, purpose: "email-verification-link" as const };
    await emit(ctx, "OtpRequested", base, meta, at);
    await emit(ctx, "OtpGenerated", { ...base, plain: token }, meta, at);
    const url = withQuery(target, { token, email: user.email });
    ctx.mailer.sendInBackground(meta, user.email, "verification", {
      url,
      token,
      email: user.email,
      expiresInMinutes: String(Math.round(expiresInMs / 60000)),
    });
  }

  /** `{success: true}` whatever the email: unknown and already-verified addresses get nothing. */
  async send(input: { email: string; callbackUrl?: string | null }, meta: RequestMeta): Promise<{ success: true }> {
    const email = normalizeEmail(input.email);
    // Validate the callback before the lookup so its error cannot depend on the email.
    this.linkTarget(input.callbackUrl);
    const user = await this.ctx.store.users.findByEmail(email);
    // For every address, before eligibility (issue 50 item 4): the same counters and the same 429 whether the
    // address is pending, verified or unknown. A refused send leaves the link already sent live.
    await this.ctx.sendLimits.enforce("verification-link", email, meta, user?.id ?? null);
    // The same store work as a send (review fix 8) for unknown and verified addresses.
    if (user && !user.emailVerified) await this.issueLink(user, input.callbackUrl, meta);
    else await this.sendNothing(email, meta);
    return { success: true };
  }

  /**
   * Consumes the token, marks the email verified and signs the user in with a fresh session. No lockout applies:
   * the token (32 random bytes) cannot be guessed, and a lock, whether earned by wrong passwords or by junk
   * tokens sent for the address, would only keep the owner's delivered link from working. For a user not
   * verified before, the link is the first proof of the mailbox: what was set up before it (a password, sessions,
   * API keys) goes, unless the request carries a session of this same user (see proveMailbox).
   */
  async verify(
    input: { email: string; token: string },
    meta: RequestMeta,
    signedInAs: { userId: string; sessionId: string } | null = null,
  ): Promise<SignInOutcome> {
    const { ctx } = this;
    const email = normalizeEmail(input.email);
    // Exact identifier: a token issued for another address is refused without being consumed. Found, not yet
    // spent: it is consumed in the transaction of the writes it pays for (below).
    const row = await ctx.secrets.findTokenFor(input.token, verificationLinkIdentifier(email));
    const user = row.userId ? await ctx.store.users.findById(row.userId) : null;
    // The email may have changed since the link was sent: the link proves the old address only.
    if (!user || user.email !== email) {
      await ctx.store.verifications.consume(row.id);
      throw invalidToken();
    }
    try {
      await ctx.hooks.beforeSignIn(user, "verify-email", meta);
    } catch (error) {
      // A refusal spends the link (it cannot be replayed against the hook); a hook that failed wrote nothing, and
      // the link stays usable for a retry.
      if (isHookRefusal(error)) await ctx.store.verifications.consume(row.id);
      throw error;
    }
    // The spent link, the mailbox proof (with its clean-up), the verified flag and the new session commit together.
    const result = await inTransaction(ctx, async (tx) => {
      // Of two requests with the same link exactly one gets the row; the other writes nothing.
      if (!(await tx.store.verifications.consume(row.id))) throw invalidToken();
      const proven = user.emailVerified ? user : await proveMailbox(tx, user, null, meta, signedInAs);
      return signInOrChallenge(tx, proven, meta, { method: "email-verification", rememberMe: true });
    });
    const at = new Date(ctx.clock.now());
    const verified = { identifier: email, purpose: "email-verification-link" as const, userId: user.id };
    await emit(ctx, "OtpVerified", verified, meta, at);
    // With a second step pending (`twoFactor()`), the sign-in is announced when that step finishes.
    if (!isChallenge(result))
      await emit(ctx, "UserSignedIn", { userId: user.id, method: "email-verification" }, meta, at);
    return result;
  }
}
