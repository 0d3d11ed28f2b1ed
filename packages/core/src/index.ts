/**
 * @latchkey/core: transport-free authentication logic over Web Crypto and storage ports.
 *
 * @example
 * import { createAuthCore, AuthError, emailOtp } from "@latchkey/core";
 */
export { AuthError, AuthConfigError, invalidField, describeError } from "./errors/index.ts";
export type { AuthErrorCode, AuthErrorOptions } from "./errors/index.ts";
export { parseDuration, rejectUnknownOptions, nearestName, EACH, originOf } from "./config/index.ts";
export type { Duration, OptionShape } from "./config/index.ts";
export { resolveConfig, AUTH_OPTION_SHAPE, EMAIL_TEMPLATE_NAMES } from "./auth/index.ts";
export type { AuthOptions } from "./auth/index.ts";
export type { ResolvedConfig, RateLimitRule, ResolvedRule } from "./kernel/index.ts";
export {
  systemClock,
  webCryptoRandom,
  createTestClock,
  databaseUnavailable,
  isDatabaseUnavailable,
  guardPorts,
  guardStore,
  DATABASE_RETRY_AFTER_SECONDS,
  compensatingTransaction,
} from "./ports/index.ts";
export type * from "./ports/index.ts";
export {
  base64url,
  fromBase64url,
  hashSecret,
  constantTimeEqual,
  randomId,
  randomToken,
  randomString,
  randomDigits,
  utf8,
  fromUtf8,
} from "./crypto/index.ts";
export { argon2idHasher, portableArgon2idRaw, DEFAULT_ARGON2_PARAMS } from "./password/index.ts";
export type { PasswordHasher, Argon2Params, Argon2idRaw } from "./password/index.ts";
export { pwnedPasswords } from "./password/index.ts";
export type { PasswordCheck, PasswordPolicyUser, PwnedPasswordsOptions } from "./password/index.ts";
export { AuthEvents } from "./kernel/index.ts";
export { consoleLogger } from "./logger/index.ts";
export type { Logger, LogFields } from "./logger/index.ts";
export type {
  AuthEventMap,
  AuthEventName,
  AuthEvent,
  AuthEventListener,
  EventBase,
  OtpPurpose,
} from "./kernel/index.ts";
export { consoleEmailSender, renderTemplate, renderEmail, DEFAULT_TEMPLATES } from "./email/index.ts";
export type { EmailMessage, EmailSender, EmailTemplates } from "./email/index.ts";
export { SessionService, SessionManagementService, toUserView, toSessionView } from "./session/index.ts";
export type {
  SessionListItem,
  SessionRevocationReason,
  UserView,
  SessionView,
  Credentials,
  CookieDescriptor,
  SignInResult,
  ValidatedSession,
} from "./session/index.ts";
export { HookRunner } from "./hooks/index.ts";
export type { AuthHooks, HookContext, SignInPath, UserAmendment, UserCreationPath, UserDraft } from "./hooks/index.ts";
export {
  RateLimiter,
  Lockout,
  ipBucket,
  retryAfterText,
  lockoutIdentifier,
  counterBinding,
} from "./rate-limit/index.ts";
export { EmailPasswordService } from "./email-password/index.ts";
export type { SignUpInput, SignUpResult, SignInInput } from "./email-password/index.ts";
export { EmailVerificationService } from "./email-verification/index.ts";
export {
  inTransaction,
  SERVER_CALL,
  orServerCall,
  normalizeEmail,
  normalizeUsername,
  checkPasswordLength,
  resolveCallbackUrl,
  withQuery,
} from "./kernel/index.ts";
export type {
  AuthContext,
  AuthPlugin,
  ApiOf,
  InstalledPlugin,
  PluginId,
  PluginRegistry,
  RequestMeta,
} from "./kernel/index.ts";
export { createAuthCore } from "./auth/index.ts";
export type { AuthCore, AuthApi, BaseApi, PluginApis } from "./auth/index.ts";
export { verificationLinkIdentifier } from "./email-verification/index.ts";
export { AccountService, AccountDeletionService, deleteAccountIdentifier } from "./account/index.ts";
export type { UpdateUserInput } from "./account/index.ts";
export {
  auditLog,
  AUDIT_LOG_PLUGIN_ID,
  AuditLogService,
  toAuditRecord,
  AUDIT_REDACTED_FIELDS,
  AUDIT_LOG_OPTION_SHAPE,
  resolveAuditLogOptions,
} from "./audit-log/index.ts";
export type {
  ListAuditEventsInput,
  AuditEventPage,
  AuditLogApi,
  AuditLogInstalled,
  AuditLogPlugin,
  AuditLogOptions,
  ResolvedAuditLogOptions,
} from "./audit-log/index.ts";
export {
  emailOtp,
  EMAIL_OTP_PLUGIN_ID,
  resolveEmailOtpOptions,
  EMAIL_OTP_OPTION_SHAPE,
  otpTemplateSources,
  OTP_ACTIONS,
  SEND_PURPOSES,
  OtpCodes,
  otpIdentifier,
  EmailOtpService,
  EmailChangeService,
} from "./email-otp/index.ts";
export { proveMailbox } from "./identity/index.ts";
export type {
  EmailOtpApi,
  EmailOtpFeature,
  EmailOtpInstalled,
  EmailOtpPlugin,
  EmailOtpOptions,
  ResolvedEmailOtpOptions,
  SendPurpose,
  OtpTarget,
  OtpRecipient,
  VerifyOptions,
  SendOtpInput,
  CheckOtpInput,
  SignInOtpInput,
  ResetPasswordOtpInput,
  RequestEmailChangeInput,
  ChangeEmailInput,
} from "./email-otp/index.ts";
export { jwt, JWT_PLUGIN_ID, JwtService, RESERVED_CLAIMS, resolveJwtOptions, JWT_OPTION_SHAPE } from "./jwt/index.ts";
export type {
  JwtOptions,
  ResolvedJwtOptions,
  JwtSettings,
  JwtAlgorithm,
  JwsAlgorithm,
  JwtHeader,
  JwtClaims,
  PublicJwk,
  JsonWebKeySet,
  JwtPayloadContext,
  JwtSigner,
  JwtSignerFactory,
  JwtApi,
  JwtInstalled,
  JwtPlugin,
} from "./jwt/index.ts";
export {
  apiKeys,
  ApiKeyService,
  API_KEY_PLUGIN_ID,
  isWellFormedApiKey,
  apiKeyUseRefusal,
  isRefillDue,
  resolveApiKeysOptions,
  API_KEYS_OPTION_SHAPE,
  hasPermissions,
  normalizePermissions,
  toApiKeyView,
} from "./api-key/index.ts";
export type {
  ApiKeysOptions,
  ResolvedApiKeysOptions,
  ApiKeyAuthentication,
  ApiKeyView,
  ApiKeyVerifyResult,
  ApiKeyVerifyError,
  ApiKeyVerifyErrorCode,
  ApiKeyApi,
  ApiKeysInstalled,
  ApiKeysPlugin,
  ApiKeyPage,
  CreateApiKeyInput,
  CreateApiKeyResult,
  CallerCreateApiKeyInput,
  UpdateApiKeyInput,
  CallerUpdateApiKeyInput,
  VerifyApiKeyInput,
  RerollApiKeyInput,
  ApiKeyUsageInput,
  ApiKeyUsage,
  ApiKeyUsageDay,
} from "./api-key/index.ts";
export { argon2idEngine } from "./password/index.ts";
