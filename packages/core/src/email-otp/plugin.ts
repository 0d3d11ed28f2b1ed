import { AuthError } from "../errors/errors.ts";
import { SERVER_CALL, type RequestMeta } from "../auth/request-meta.ts";
import type { AuthContext } from "../auth/context.ts";
import type { AuthPlugin } from "../auth/plugin.ts";
import type { SignInResult, UserView } from "../session/session.ts";
import {
  otpTemplateSources,
  resolveEmailOtpOptions,
  type EmailOtpOptions,
  type ResolvedEmailOtpOptions,
} from "./options.ts";
import { OtpCodes } from "./otp-codes.ts";
import {
  EmailOtpService,
  type CheckOtpInput,
  type ResetPasswordOtpInput,
  type SendOtpInput,
  type SignInOtpInput,
} from "./email-otp.ts";
import { EmailChangeService, type ChangeEmailInput, type RequestEmailChangeInput } from "./email-change.ts";

/**
 * The plugin id.
 *
 * @example
 * const feature = auth.core.plugin<EmailOtpFeature>(EMAIL_OTP_PLUGIN_ID);
 */
export const EMAIL_OTP_PLUGIN_ID = "email-otp";

/**
 * `auth.api` operations of the email OTP feature (trusted server calls, no HTTP, no rate limit).
 *
 * @example
 * await auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "sign-in" });
 * const { user, session } = await auth.api.signInEmailOtp({ email: "ada@example.com", otp: "042917" });
 */
export interface EmailOtpApi {
  sendVerificationOtp(input: SendOtpInput, meta?: RequestMeta): Promise<{ success: true }>;
  checkVerificationOtp(input: CheckOtpInput, meta?: RequestMeta): Promise<{ success: true }>;
  signInEmailOtp(input: SignInOtpInput, meta?: RequestMeta): Promise<SignInResult>;
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
 * What `emailOtp()` installs.
 *
 * @example
 * const { options, service } = auth.core.plugin<EmailOtpFeature>("email-otp")!;
 */
export interface EmailOtpFeature {
  options: ResolvedEmailOtpOptions;
  service: EmailOtpService;
  emailChange: EmailChangeService;
  codes: OtpCodes;
  api: EmailOtpApi;
}

/**
 * @example
 * const plugin: EmailOtpPlugin = emailOtp();
 */
export type EmailOtpPlugin = AuthPlugin<typeof EMAIL_OTP_PLUGIN_ID, EmailOtpFeature>;

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
    init(ctx: AuthContext): EmailOtpFeature {
      const codes = new OtpCodes(ctx, resolved, otpTemplateSources(resolved.templates, ctx.config.email.templates));
      const service = new EmailOtpService(ctx, resolved, codes);
      const emailChange = new EmailChangeService(ctx, resolved, codes);
      const m = (meta?: RequestMeta) => meta ?? SERVER_CALL;
      const userById = async (userId: string) => {
        const user = await ctx.store.users.findById(userId);
        if (!user) throw new AuthError("NOT_FOUND", "No such user");
        return user;
      };
      const api: EmailOtpApi = {
        sendVerificationOtp: (input, meta) => service.send(input, m(meta)),
        checkVerificationOtp: (input, meta) => service.check(input, m(meta)),
        signInEmailOtp: (input, meta) => service.signIn(input, m(meta)),
        verifyEmailOtp: (input, meta) => service.verifyEmail(input, m(meta)),
        requestPasswordResetEmailOtp: (input, meta) => service.requestPasswordReset(input, m(meta)),
        resetPasswordEmailOtp: (input, meta) => service.resetPassword(input, m(meta)),
        requestEmailChangeOtp: async ({ userId, ...input }, meta) =>
          emailChange.request(await userById(userId), input, m(meta)),
        changeEmailOtp: async ({ userId, ...input }, meta) =>
          emailChange.change(await userById(userId), input, m(meta)),
      };
      return { options: resolved, service, emailChange, codes, api };
    },
  };
}
