import { AuthError } from "../errors/errors.ts";
import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthContext } from "../context/context.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { UserView } from "../session/session.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";
import {
  otpTemplateSources,
  resolveEmailOtpOptions,
  type ResolvedEmailOtpOptions,
  type EmailOtpOptions,
} from "./options.ts";
import { OtpCodes } from "./otp-codes.ts";
import { EmailOtpService } from "./email-otp.ts";
import type { CheckOtpInput, ResetPasswordOtpInput, SendOtpInput, SignInOtpInput } from "./otp-inputs.ts";
import type { ChangeEmailInput, RequestEmailChangeInput } from "./email-change.ts";

/**
 * `auth.api` operations of the email OTP feature (trusted server calls, no HTTP, no rate limit).
 *
 * @example
 * await auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "sign-in" });
 * const { user, session } = signedIn(await auth.api.signInEmailOtp({ email: "ada@example.com", otp: "042917" }));
 */
export interface EmailOtpApi {
  sendVerificationOtp(input: SendOtpInput, meta?: RequestMeta): Promise<{ success: true }>;
  checkVerificationOtp(input: CheckOtpInput, meta?: RequestMeta): Promise<{ success: true }>;
  signInEmailOtp(input: SignInOtpInput, meta?: RequestMeta): Promise<SignInOutcome>;
  verifyEmailOtp(input: { email: string; otp: string }, meta?: RequestMeta): Promise<{ user: UserView }>;
  requestPasswordResetEmailOtp(input: { email: string }, meta?: RequestMeta): Promise<{ success: true }>;
  resetPasswordEmailOtp(input: ResetPasswordOtpInput, meta?: RequestMeta): Promise<{ success: true }>;
  /** With `emailChange.enabled` (else NOT_FOUND): the user is named by id instead of a session. */
  requestEmailChangeOtp(
    input: RequestEmailChangeInput & { userId: string },
    meta?: RequestMeta,
  ): Promise<{ success: true }>;
  changeEmailOtp(input: ChangeEmailInput & { userId: string }, meta?: RequestMeta): Promise<{ user: UserView }>;
}

/**
 * What `emailOtp()` installs: `core.plugins.get(EMAIL_OTP_PLUGIN_ID)`. The service carries the code store
 * (`service.codes`) and the email change (`service.emailChange`).
 *
 * @example
 * const { options, service } = auth.core.plugins.get(EMAIL_OTP_PLUGIN_ID)!;
 */
export type EmailOtpInstalled = InstalledPlugin<EmailOtpService, EmailOtpApi, ResolvedEmailOtpOptions>;

/** @deprecated The former name of `EmailOtpInstalled`. */
export type EmailOtpFeature = EmailOtpInstalled;

/**
 * The id `emailOtp()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(EMAIL_OTP_PLUGIN_ID);
 */
export const EMAIL_OTP_PLUGIN_ID = "email-otp" as PluginId<"email-otp", EmailOtpInstalled>;

/**
 * `emailOtp()` needs no plugin-owned store port.
 *
 * @example
 * const plugin: EmailOtpPlugin = emailOtp();
 */
export type EmailOtpPlugin = AuthPlugin<"email-otp", EmailOtpInstalled, never>;

/**
 * Email one-time codes: passwordless sign-in, email verification, password reset and (opt-in) email change.
 * Options are validated here: a bad one throws `AuthConfigError` naming it (`emailOtp.codeLength must be 4..10`).
 *
 * @example
 * import { emailOtp } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [emailOtp({ codeLength: 6, emailChange: { enabled: true } })] });
 */
export function emailOtp(options: EmailOtpOptions = {}): EmailOtpPlugin {
  const resolved = resolveEmailOtpOptions(options);
  return {
    id: EMAIL_OTP_PLUGIN_ID,
    requires: [],
    init(ctx: AuthContext): EmailOtpInstalled {
      const codes = new OtpCodes(ctx, resolved, otpTemplateSources(resolved.templates, ctx.config.email.templates));
      const service = new EmailOtpService(ctx, resolved, codes);
      const { emailChange } = service;
      const userById = async (userId: string) => {
        const user = await ctx.store.users.findById(userId);
        if (!user) throw new AuthError("NOT_FOUND", "No such user");
        return user;
      };
      const api: EmailOtpApi = {
        sendVerificationOtp: (input, meta) => service.send(input, orServerCall(meta)),
        checkVerificationOtp: (input, meta) => service.check(input, orServerCall(meta)),
        signInEmailOtp: (input, meta) => service.signIn(input, orServerCall(meta)),
        verifyEmailOtp: (input, meta) => service.verifyEmail(input, orServerCall(meta)),
        requestPasswordResetEmailOtp: (input, meta) => service.requestPasswordReset(input, orServerCall(meta)),
        resetPasswordEmailOtp: (input, meta) => service.resetPassword(input, orServerCall(meta)),
        requestEmailChangeOtp: async ({ userId, ...input }, meta) =>
          emailChange.request(await userById(userId), input, orServerCall(meta)),
        changeEmailOtp: async ({ userId, ...input }, meta) =>
          emailChange.change(await userById(userId), input, orServerCall(meta)),
      };
      return { service, api, options: resolved };
    },
  };
}
