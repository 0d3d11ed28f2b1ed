/**
 * @latchkey/core: transport-free authentication logic over Web Crypto and storage ports.
 *
 * @example
 * import { createAuthCore, AuthError, emailOtp } from "@latchkey/core";
 */
export { AuthError, AuthConfigError, describeError } from "./errors/index.ts";
export type { AuthErrorCode, AuthErrorOptions } from "./errors/index.ts";
export { rejectUnknownOptions, EACH, originOf } from "./config/index.ts";
export type {
  Duration,
  OptionShape,
  DefaultedOption,
  FilledOf,
  InputOf,
  OptionGroup,
  OptionKind,
  OptionSchema,
  OptionSettings,
  OptionSpec,
} from "./config/index.ts";
export { resolveConfig, AUTH_SCHEMA, AUTH_OPTION_SHAPE, EMAIL_TEMPLATE_NAMES } from "./auth/index.ts";
export type { AuthOptions } from "./auth/index.ts";
// Each \`createAuth\` option group's schema, beside its feature (AUTH_SCHEMA composes them; docs/options.md lists them).
export { COOKIES_SCHEMA, SESSION_SCHEMA } from "./session/options.ts";
export { EMAIL_SCHEMA } from "./email/options.ts";
export { RATE_LIMIT_SCHEMA, LOCKOUT_SCHEMA } from "./rate-limit/options.ts";
export { PASSWORD_POLICY_SCHEMA, PASSWORD_HASHING_SCHEMA } from "./password/options.ts";
export { DEVICE_COOKIES_SCHEMA } from "./device/options.ts";
export { EMAIL_PASSWORD_SCHEMA } from "./email-password/index.ts";
export { EMAIL_VERIFICATION_SCHEMA } from "./email-verification/index.ts";
export { DELETE_ACCOUNT_SCHEMA } from "./account/index.ts";
export type { ResolvedConfig, RateLimitRule, ResolvedRule } from "./kernel/index.ts";
export { webCryptoRandom, compensatingTransaction, banInForce } from "./ports/index.ts";
export type * from "./ports/index.ts";
export { base64url, hashSecret, randomString, utf8 } from "./crypto/index.ts";
export { argon2idHasher } from "./password/index.ts";
export type { PasswordHasher, Argon2Params, Argon2idRaw } from "./password/index.ts";
export { HashGate } from "./password/index.ts";
export type { HashGateLimits, HashGateStats } from "./password/index.ts";
export { pwnedPasswords } from "./password/index.ts";
export type {
  PasswordCheck,
  PasswordCheckContext,
  PasswordPolicyUser,
  PwnedPasswordsOptions,
} from "./password/index.ts";
export { AuthEvents } from "./kernel/index.ts";
export type { Logger, LogFields } from "./logger/index.ts";
export type {
  AuthEventMap,
  AuthEventName,
  AuthEvent,
  AuthEventListener,
  EventBase,
  OtpPurpose,
} from "./kernel/index.ts";
export { consoleEmailSender } from "./email/index.ts";
export type { EmailMessage, EmailSender, EmailTemplates } from "./email/index.ts";
export { toUserView, isChallenge, signedIn } from "./session/index.ts";
export type { SessionService, CachedSession } from "./session/index.ts";
export type {
  SessionManagementService,
  SessionListItem,
  SessionRevocationReason,
} from "./session-management/index.ts";
export type {
  UserView,
  SessionView,
  Credentials,
  CookieDescriptor,
  SignInResult,
  ValidatedSession,
  SecondFactorChallenge,
  SignInAttempt,
  SignInGate,
  SignInMethod,
  SignInOutcome,
} from "./session/index.ts";
export type { HookRunner } from "./hooks/index.ts";
export { HOOKS_SCHEMA } from "./hooks/index.ts";
export type {
  AuthHooks,
  BeforeSignIn,
  BeforeUserCreated,
  HookContext,
  SignInPath,
  UserAmendment,
  UserCreationPath,
  UserDraft,
} from "./hooks/index.ts";
export {
  RateLimiter,
  HashBudget,
  Lockout,
  counterBinding,
  storedCounterKey,
  keyedCounters,
} from "./rate-limit/index.ts";
export { EmailPasswordService } from "./email-password/index.ts";
export type { SignUpInput, SignUpResult, SignInInput } from "./email-password/index.ts";
export type { EmailVerificationService } from "./email-verification/index.ts";
export { inTransaction } from "./context/index.ts";
export type { AuthContext, AuthPlugin, ApiOf, InstalledPlugin, PluginId, PluginRegistry } from "./context/index.ts";
export type { RequestMeta } from "./kernel/index.ts";
export { createAuthCore } from "./auth/index.ts";
export type { AuthCore, AuthApi, BaseApi, PluginApis } from "./auth/index.ts";
export type { AccountService, AccountDeletionService } from "./account/index.ts";
export type { UpdateUserInput } from "./account/index.ts";
export {
  auditLog,
  AUDIT_LOG_PLUGIN_ID,
  AuditLogService,
  AUDIT_LOG_SCHEMA,
  AUDIT_LOG_OPTION_SHAPE,
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
  EMAIL_OTP_SCHEMA,
  EMAIL_OTP_OPTION_SHAPE,
  SEND_PURPOSES,
  EmailOtpService,
} from "./email-otp/index.ts";
export type { OtpCodes, EmailChangeService } from "./email-otp/index.ts";
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
export {
  magicLink,
  MAGIC_LINK_PLUGIN_ID,
  MAGIC_LINK_SCHEMA,
  MAGIC_LINK_OPTION_SHAPE,
  MagicLinkService,
} from "./magic-link/index.ts";
export type {
  MagicLinkApi,
  MagicLinkInstalled,
  MagicLinkPlugin,
  MagicLinkOptions,
  ResolvedMagicLinkOptions,
  MagicLinkSignIn,
  SendMagicLinkInput,
  VerifyMagicLinkInput,
} from "./magic-link/index.ts";
export {
  twoFactor,
  TWO_FACTOR_PLUGIN_ID,
  TWO_FACTOR_SCHEMA,
  TWO_FACTOR_OPTION_SHAPE,
  TwoFactorService,
  TwoFactorSignIn,
} from "./two-factor/index.ts";
export type {
  TwoFactorApi,
  TwoFactorInstalled,
  TwoFactorPlugin,
  TwoFactorOptions,
  ResolvedTwoFactorOptions,
  TwoFactorSetup,
  TotpAlgorithm,
  TotpDigits,
  FinishSignInInput,
  TrustedDeviceCredential,
  TwoFactorSignInResult,
} from "./two-factor/index.ts";
export {
  oauth,
  OAUTH_PLUGIN_ID,
  OAUTH_SCHEMA,
  OAUTH_OPTION_SHAPE,
  OAuthService,
  OAuthCallbackError,
  OAUTH_STATE_TTL_MS,
  oidc,
  oauth2,
  apple,
  discord,
  github,
  gitlab,
  google,
  microsoft,
  ID_TOKEN_ALGORITHMS,
} from "./oauth/index.ts";
export type {
  OAuthApi,
  OAuthInstalled,
  OAuthPlugin,
  OAuthOptions,
  ResolvedOAuthOptions,
  LinkedAccountView,
  ProviderAccessToken,
  IdTokenSignInInput,
  SocialCallback,
  SocialStart,
  StartSocialInput,
  ClientCredentials,
  OAuth2Provider,
  OAuthProfile,
  OAuthProvider,
  OidcProvider,
  ProfileContext,
  OAuth2Endpoints,
} from "./oauth/index.ts";
export {
  passkeys,
  PASSKEYS_PLUGIN_ID,
  PASSKEYS_SCHEMA,
  PASSKEYS_OPTION_SHAPE,
  PasskeyService,
} from "./passkey/index.ts";
export type {
  PasskeyApi,
  PasskeysInstalled,
  PasskeysPlugin,
  PasskeyOptions,
  PasskeyUserVerification,
  ResolvedPasskeyOptions,
  PasskeyCeremony,
  PasskeySignInInput,
  PasskeySignUpInput,
  PasskeySignUpOptionsInput,
  PasskeyView,
  RegisterPasskeyInput,
  AuthenticatorTransport,
  CredentialDescriptorJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "./passkey/index.ts";
export {
  admin,
  ADMIN_PLUGIN_ID,
  ADMIN_SCHEMA,
  ADMIN_OPTION_SHAPE,
  AdminService,
  applyBan,
  rolesOf,
  toAdminUserView,
} from "./admin/index.ts";
export type {
  AdminApi,
  AdminInstalled,
  AdminPlugin,
  AdminOptions,
  ResolvedAdminOptions,
  AdminAccountOps,
  AdminUserDetail,
  AdminUserView,
  BanUserInput,
  ListUsersInput,
  ListUsersResult,
} from "./admin/index.ts";
export {
  organizations,
  ORGANIZATIONS_PLUGIN_ID,
  ORGANIZATIONS_SCHEMA,
  ORGANIZATIONS_OPTION_SHAPE,
  OrganizationService,
  DEFAULT_ROLES,
  OWNER_ROLE,
} from "./organization/index.ts";
export type {
  OrganizationApi,
  OrganizationsInstalled,
  OrganizationsPlugin,
  AllowUserToCreate,
  BeforeMemberAdded,
  BeforeOrganizationCreated,
  MemberAddPath,
  MemberDraft,
  OrganizationDraft,
  OrganizationHooks,
  OrganizationsOptions,
  ResolvedOrganizationsOptions,
  CreateOrganizationInput,
  FullOrganizationView,
  InvitationView,
  InviteMemberInput,
  MembershipView,
  MemberView,
  OrganizationRef,
  OrganizationView,
  UpdateOrganizationInput,
} from "./organization/index.ts";
export { jwt, JWT_PLUGIN_ID, JwtService, JWT_SCHEMA, JWT_OPTION_SHAPE } from "./jwt/index.ts";
export type {
  JwtOptions,
  JwtPayloadBuilder,
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
  apiKeyUseRefusal,
  apiKeyUseRefusalAt,
  boundByStoreClock,
  STORE_CLOCK_LEAD_MS,
  isRefillDue,
  API_KEYS_SCHEMA,
  API_KEYS_OPTION_SHAPE,
} from "./api-key/index.ts";
export type {
  ApiKeysOptions,
  ResolvedApiKeysOptions,
  ApiKeyAuthentication,
  ApiKeyView,
  ApiKeyVerifyResult,
  ApiKeyVerifyError,
  ApiKeyVerifyErrorCode,
  CallerApiKeyVerifyResult,
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
export { CACHE_SCHEMA, CACHE_OPTION_SHAPE, CACHE_DEFAULTS } from "./cache/index.ts";
export type { AuthCache, CacheCarrier, CacheCarrierListener, CacheOptions, CacheStats } from "./cache/index.ts";
export { sweepStore } from "./sweep/index.ts";
export type { SweepReport, SweepOptions, SweepPlan } from "./sweep/index.ts";
