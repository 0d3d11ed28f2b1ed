export { emailOtp, EMAIL_OTP_PLUGIN_ID } from "./plugin.ts";
export type { EmailOtpApi, EmailOtpFeature, EmailOtpInstalled, EmailOtpPlugin } from "./plugin.ts";
export type { EmailOtpOptions } from "./options.ts";
export {
  resolveEmailOtpOptions,
  EMAIL_OTP_SCHEMA,
  EMAIL_OTP_OPTION_SHAPE,
  otpTemplateSources,
  OTP_ACTIONS,
  SEND_PURPOSES,
} from "./options.ts";
export type { ResolvedEmailOtpOptions, SendPurpose } from "./options.ts";
export { OtpCodes, otpIdentifier } from "./otp-codes.ts";
export type { OtpTarget, OtpRecipient, VerifyOptions } from "./otp-codes.ts";
export { EmailOtpService } from "./email-otp.ts";
export type { SendOtpInput, CheckOtpInput, SignInOtpInput, ResetPasswordOtpInput } from "./otp-inputs.ts";
export { EmailChangeService } from "./email-change.ts";
export type { RequestEmailChangeInput, ChangeEmailInput } from "./email-change.ts";
