import { banInForce } from "../ports/ban.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { normalizeEmail, resolveCallbackUrl, withQuery } from "../kernel/validation.ts";
import { inTransaction } from "../context/transaction.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { newAccount, newVerifiedUser } from "../identity/accounts.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import type { ResolvedMagicLinkOptions } from "./options.ts";

/** The verification-row identifier prefix of magic links (`magic-link:<email>`, one live link per address). */
const MAGIC_LINK_PREFIX = "magic-link:";

/** The account a magic-link user has (kept by the mailbox proof, like `EMAIL_OTP` for OTP sign-in). */
const MAGIC_LINK_PROVIDER = "MAGIC_LINK";

/** The verification-row identifier of the magic link sent to `email`. */
function magicLinkIdentifier(email: string): string {
  return `${MAGIC_LINK_PREFIX}${email}`;
}

/**
 * @example
 * const input: SendMagicLinkInput = { email: "ada@example.com", callbackURL: "/dashboard" };
 */
export interface SendMagicLinkInput {
  email: string;
  /** Where the browser goes once signed in: a path on `baseUrl` or a URL on a trusted origin. Default `baseUrl`. */
  callbackURL?: string | null;
  /** Used only when the link creates the user. */
  name?: string | null;
}

/**
 * @example
 * const input: VerifyMagicLinkInput = { token, callbackURL: "/dashboard" };
 */
export interface VerifyMagicLinkInput {
  token: string;
  callbackURL?: string | null;
}

/**
 * A magic-link sign-in: the session (or, with `twoFactor()`, the second step it needs first) and where to send the
 * browser.
 */
export type MagicLinkSignIn = SignInOutcome & {
  /** The resolved, trusted `callbackURL` (absolute). */
  callbackURL: string;
};

const invalidToken = () => new AuthError("INVALID_TOKEN", "The link is invalid or has expired");

/**
 * Sign-in by emailed link: a single-use token (32 random bytes, only its SHA-256 stored) mailed as a link to a
 * confirm page; the page's POST spends it and signs in, creating the user on first use.
 *
 * @example
 * await service.send({ email: "ada@example.com", callbackURL: "/dashboard" }, meta);
 * const { session, callbackURL } = await service.verify({ token }, meta);
 */
export class MagicLinkService {
  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedMagicLinkOptions,
    private readonly templates: Record<string, string>,
  ) {}

  /** The trusted absolute form of `callbackURL` (default `baseUrl`); 400 `INVALID_CALLBACK_URL` otherwise. */
  callbackTarget(callbackURL: string | null | undefined): string {
    const { config } = this.ctx;
    // Server callers skip the route's schema: anything but a string (or nothing) is refused here.
    if (callbackURL !== null && callbackURL !== undefined && typeof callbackURL !== "string")
      throw invalidField("callbackURL", "callbackURL must be a string");
    return resolveCallbackUrl(config, callbackURL, `${config.baseUrl}/`);
  }

  /** Where the emailed link points: the app's `confirmURL`, else the built-in page `GET /magic-link/verify`. */
  confirmPage(): string {
    const { config } = this.ctx;
    const builtIn = `${config.baseUrl}${config.basePath}/magic-link/verify`;
    return this.options.confirmURL === null ? builtIn : resolveCallbackUrl(config, this.options.confirmURL, builtIn);
  }

  /**
   * `{success: true}` whatever the email: an eligible address (a user, or anyone while `allowSignUp`) gets a fresh
   * link (earlier ones die); another one costs the same store work and gets nothing.
   */
  async send(input: SendMagicLinkInput, meta: RequestMeta): Promise<{ success: true }> {
    const { ctx, options } = this;
    const email = normalizeEmail(input.email);
    // Checked before the lookup, so the error cannot depend on the email.
    const callbackURL = this.callbackTarget(input.callbackURL);
    const given = input.name ?? null;
    if (given !== null && (typeof given !== "string" || given.length > 256))
      throw invalidField("name", "name must be a string of at most 256 characters");
    const identifier = magicLinkIdentifier(email);
    const user = await ctx.store.users.findByEmail(email);
    const requested = { identifier: email, purpose: "magic-link" as const };
    // Before eligibility is looked at, for every address: the same counters move and the same answer (429
    // `RATE_LIMITED` when refused) comes back whether or not the address gets a link. A refused send issues
    // nothing, so the link already sent stays the live one.
    await ctx.sendLimits.enforce("magic-link", email, meta, user?.id ?? null);
    // A banned user (`admin()`) gets no link, and the same answer and store work as an address that gets none.
    if ((!user && !options.allowSignUp) || (user && banInForce(user, ctx.clock.now()))) {
      // The same store work as a send: one verification write and the `OtpRequested` event.
      await ctx.store.verifications.deleteByIdentifier(identifier);
      await emit(ctx, "OtpRequested", requested, meta);
      return { success: true };
    }
    const name = user ? null : given;
    const token = await ctx.secrets.issueToken(identifier, user?.id ?? null, options.expiresInMs, name);
    const at = new Date(ctx.clock.now());
    await emit(ctx, "OtpRequested", requested, meta, at);
    await emit(ctx, "OtpGenerated", { ...requested, plain: token }, meta, at);
    const url = withQuery(this.confirmPage(), { token, callbackURL });
    const vars = { url, email, expiresInMinutes: String(Math.max(1, Math.round(options.expiresInMs / 60_000))) };
    ctx.mailer.sendInBackground(meta, email, "magic-link", vars, undefined, this.templates);
    return { success: true };
  }

  /**
   * Spends the link and signs in with a fresh session. An unknown email becomes a verified user (hooks apply); an
   * unverified one loses what was set up before this proof of the mailbox (see proveMailbox). Unknown, spent,
   * expired or superseded links are 400 `INVALID_TOKEN`; of two requests with the same link exactly one signs in.
   */
  async verify(input: VerifyMagicLinkInput, meta: RequestMeta): Promise<MagicLinkSignIn> {
    const { ctx } = this;
    const callbackURL = this.callbackTarget(input.callbackURL);
    const row = await ctx.secrets.findToken(input.token, MAGIC_LINK_PREFIX);
    const email = row.identifier.slice(MAGIC_LINK_PREFIX.length);
    const found = await ctx.store.users.findByEmail(email);
    // Issued to a user who is gone (or whose address now belongs to another user), or to a newcomer while sign-up
    // was on: the link proves the mailbox, but not for this account.
    if ((row.userId !== null && found?.id !== row.userId) || (!found && !this.options.allowSignUp)) {
      await ctx.store.verifications.consume(row.id);
      throw invalidToken();
    }
    let signingIn: UserRecord;
    try {
      signingIn =
        found ??
        (await ctx.hooks.beforeUserCreated(newVerifiedUser(ctx, email, row.payload), "sign-in-magic-link", meta));
      await ctx.hooks.beforeSignIn(signingIn, "sign-in-magic-link", meta);
    } catch (error) {
      // A link a hook refused is spent: it cannot be replayed against the hook.
      await ctx.store.verifications.consume(row.id);
      throw error;
    }
    let result: SignInOutcome;
    try {
      result = await inTransaction(ctx, async (tx) => {
        // First: of two requests with the same link exactly one gets the row, and the other writes nothing.
        if (!(await tx.store.verifications.consume(row.id))) throw new SpentMeanwhile();
        const user = found ? await this.proveForLink(tx, found, meta) : await this.createUser(tx, signingIn, meta);
        return signInOrChallenge(tx, user, meta, { method: "magic-link", rememberMe: true });
      });
    } catch (error) {
      if (error instanceof SpentMeanwhile) throw invalidToken();
      throw error;
    }
    const at = new Date(ctx.clock.now());
    const userId = isChallenge(result) ? result.userId : result.user.id;
    await emit(ctx, "OtpVerified", { identifier: email, purpose: "magic-link", userId }, meta, at);
    // With a second step pending, the sign-in happens (and is announced) when that step finishes.
    if (!isChallenge(result)) await emit(ctx, "UserSignedIn", { userId, method: "magic-link" }, meta, at);
    return { ...result, callbackURL };
  }

  /** Mailbox proven by the link: pre-proof accounts go (unverified users only) and a `MAGIC_LINK` account exists. */
  private async proveForLink(ctx: AuthContext, user: UserRecord, meta: RequestMeta): Promise<UserRecord> {
    const proven = await proveMailbox(ctx, user, MAGIC_LINK_PROVIDER, meta);
    const accounts = await ctx.store.accounts.listByUser(proven.id);
    if (!accounts.some((a) => a.providerId === MAGIC_LINK_PROVIDER))
      await ctx.store.accounts.create(newAccount(ctx, proven.id, MAGIC_LINK_PROVIDER, null));
    return proven;
  }

  /** The new verified user with a `MAGIC_LINK` account; a sign-up that took the email meanwhile is proven instead. */
  private async createUser(ctx: AuthContext, user: UserRecord, meta: RequestMeta): Promise<UserRecord> {
    const created = await ctx.store.users.create(user, [newAccount(ctx, user.id, MAGIC_LINK_PROVIDER, null)]);
    if (created.ok) {
      await emit(ctx, "UserSignedUp", { userId: user.id, email: user.email }, meta, user.createdAt);
      return created.value;
    }
    const existing = await ctx.store.users.findByEmail(user.email);
    if (!existing) throw new AuthError("INTERNAL_ERROR", "The user could not be created", { cause: created });
    return this.proveForLink(ctx, existing, meta);
  }
}

/** Thrown inside a sign-in's transaction (rolling it back) when a parallel request spent the link first. */
class SpentMeanwhile extends Error {
  constructor() {
    super("the link was spent by a parallel request");
  }
}
