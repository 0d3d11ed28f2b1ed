import { AuthError } from "../errors/errors.ts";
import { normalizeEmail, resolveCallbackUrl, withQuery } from "../auth/validation.ts";
import type { AuthContext } from "../auth/context.ts";
import type { RequestMeta } from "../auth/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { SignInResult } from "../session/session.ts";

/**
 * Link-token email verification: a single-use token emailed as a link (templates `verification.html` and
 * `verification.txt`); consuming it verifies the email and signs the user in.
 */
export class EmailVerificationService {
  constructor(private readonly ctx: AuthContext) {}

  private identifier(email: string): string {
    return `email-verification-link:${email}`;
  }

  /** Issues and emails a token to a known user. */
  async sendFor(user: UserRecord, callbackUrl: string | undefined, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const { emailVerification } = ctx.config;
    const target = resolveCallbackUrl(ctx.config, callbackUrl, emailVerification.callbackUrlOverride ?? ctx.config.baseUrl + emailVerification.callbackPath);
    const token = await ctx.secrets.issueToken(this.identifier(user.email), user.id, emailVerification.expiresInMs);
    const at = new Date(ctx.clock.now());
    await ctx.events.emit("OtpRequested", { identifier: user.email, purpose: "email-verification-link", at, ip: meta.ip, userAgent: meta.userAgent });
    await ctx.events.emit("OtpGenerated", { identifier: user.email, purpose: "email-verification-link", plain: token, at, ip: meta.ip, userAgent: meta.userAgent });
    const url = withQuery(target, { token, email: user.email });
    ctx.mailer.sendInBackground(meta, user.email, "verification", { url, token, email: user.email, expiresInMinutes: String(Math.round(emailVerification.expiresInMs / 60000)) });
  }

  /** `{success: true}` whatever the email: unknown and already-verified addresses get nothing. */
  async send(input: { email: string; callbackUrl?: string | null }, meta: RequestMeta): Promise<{ success: true }> {
    const email = normalizeEmail(input.email);
    // Validate the callback before the lookup so its error cannot depend on the email.
    resolveCallbackUrl(this.ctx.config, input.callbackUrl, this.ctx.config.baseUrl);
    const user = await this.ctx.store.users.findByEmail(email);
    if (user && !user.emailVerified) await this.sendFor(user, input.callbackUrl ?? undefined, meta);
    return { success: true };
  }

  /** Consumes the token, marks the email verified and signs the user in with a fresh session. */
  async verify(input: { email: string; token: string }, meta: RequestMeta): Promise<SignInResult> {
    const { ctx } = this;
    const email = normalizeEmail(input.email);
    const row = await ctx.secrets.consumeToken(input.token, this.identifier(email));
    if (row.identifier !== this.identifier(email) || !row.userId) throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
    const updated = await ctx.store.users.update(row.userId, { emailVerified: true, updatedAt: new Date(ctx.clock.now()) });
    if (!updated?.ok || updated.value.email !== email) throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
    const at = new Date(ctx.clock.now());
    await ctx.events.emit("OtpVerified", { identifier: email, purpose: "email-verification-link", userId: row.userId, at, ip: meta.ip, userAgent: meta.userAgent });
    await ctx.events.emit("EmailVerified", { userId: row.userId, email, at, ip: meta.ip, userAgent: meta.userAgent });
    const result = await ctx.sessions.create(updated.value, meta);
    await ctx.events.emit("UserSignedIn", { userId: row.userId, method: "email-verification", at, ip: meta.ip, userAgent: meta.userAgent });
    return result;
  }
}
