/**
 * @latchkey/core/internal: helpers the Latchkey packages share with one another and with plugin code that lives
 * beside core. NOT public API: no semver promise, names may change in any release. Applications use `@latchkey/core`.
 *
 * @packageDocumentation
 */
export { invalidField } from "./errors/index.ts";
export { nearestName } from "./config/index.ts";
export { DATABASE_RETRY_AFTER_SECONDS } from "./ports/index.ts";
export { decodeUserCursor, userListKey, userPage } from "./ports/user-list.ts";
export { fromBase64url, constantTimeEqual, randomId, randomToken, randomDigits, fromUtf8 } from "./crypto/index.ts";
export { DEFAULT_ARGON2_PARAMS } from "./password/index.ts";
export { renderTemplate, renderEmail, DEFAULT_TEMPLATES } from "./email/index.ts";
export { SessionService, toSessionView, sessionAnswerJson } from "./session/index.ts";
export { SessionManagementService } from "./session-management/index.ts";
export { HookRunner } from "./hooks/index.ts";
export {
  ipBucket,
  retryAfterText,
  lockoutIdentifier,
  forwardedAddress,
  parseIp,
  ipBuckets,
} from "./rate-limit/index.ts";
export { EmailVerificationService, verificationLinkIdentifier } from "./email-verification/index.ts";
export {
  orServerCall,
  normalizeEmail,
  normalizeUsername,
  checkPasswordLength,
  resolveCallbackUrl,
  withQuery,
} from "./kernel/index.ts";
export { AccountService, AccountDeletionService, deleteAccountIdentifier } from "./account/index.ts";
export { toAuditRecord, AUDIT_REDACTED_FIELDS, resolveAuditLogOptions } from "./audit-log/index.ts";
export {
  resolveEmailOtpOptions,
  otpTemplateSources,
  OTP_ACTIONS,
  OtpCodes,
  otpIdentifier,
  EmailChangeService,
} from "./email-otp/index.ts";
export { proveMailbox } from "./identity/index.ts";
export { RESERVED_CLAIMS, resolveJwtOptions, KeyEnvelope } from "./jwt/index.ts";
export { isWellFormedApiKey, resolveApiKeysOptions, hasPermissions, toApiKeyView } from "./api-key/index.ts";
export { emit } from "./kernel/emit.ts";
export { API_KEY_LIMITS } from "./api-key/index.ts";
export { apiKeyUseRule, jsApiKeyUseRule, applyUse, refusalOf } from "./api-key/index.ts";
export type {
  ApiKeyUseRule,
  ApiKeyUseSet,
  UseRuleBuilder,
  UseRuleRepr,
  UseRuleNumField,
  UseRuleTimeField,
  JsRepr,
} from "./api-key/index.ts";
export { parseDuration, applySchema, shapeOf, defaulted, flag, group, optional, required } from "./config/index.ts";
export {
  systemClock,
  createTestClock,
  databaseUnavailable,
  isDatabaseUnavailable,
  guardPorts,
  guardStore,
} from "./ports/index.ts";
export { portableArgon2idRaw } from "./password/index.ts";
export { consoleLogger } from "./logger/index.ts";
export { SERVER_CALL } from "./kernel/index.ts";
export { normalizePermissions } from "./api-key/index.ts";
export { inProcessCacheBus, encodeInvalidations } from "./cache/index.ts";
export { sweepBatchSize } from "./sweep/index.ts";
export {
  hotp,
  totp,
  totpStep,
  matchTotp,
  totpURI,
  base32Encode,
  base32Decode,
  TotpSecretBox,
} from "./two-factor/index.ts";
export type { TotpAlgorithm, TotpParams } from "./two-factor/index.ts";
