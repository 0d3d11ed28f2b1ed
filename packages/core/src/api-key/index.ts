export { apiKeys, API_KEY_PLUGIN_ID } from "./plugin.ts";
export type { ApiKeyApi, ApiKeysInstalled, ApiKeysPlugin } from "./plugin.ts";
export type { ApiKeysOptions } from "./options.ts";
export { ApiKeyService } from "./api-key.ts";
export { isWellFormedApiKey } from "./verify.ts";
export {
  apiKeyUseRefusal,
  apiKeyUseRefusalAt,
  boundByStoreClock,
  isRefillDue,
  STORE_CLOCK_LEAD_MS,
} from "./use-rules.ts";
export { apiKeyUseRule } from "./use-rule.ts";
export type {
  ApiKeyUseRule,
  ApiKeyUseSet,
  UseRuleBuilder,
  UseRuleRepr,
  UseRuleNumField,
  UseRuleTimeField,
} from "./use-rule.ts";
export { jsApiKeyUseRule, applyUse, refusalOf } from "./use-rule-js.ts";
export type { JsRepr } from "./use-rule-js.ts";
export type { ApiKeyAuthentication } from "./verify.ts";
export { resolveApiKeysOptions, API_KEYS_SCHEMA, API_KEYS_OPTION_SHAPE } from "./options.ts";
export type { ResolvedApiKeysOptions } from "./options.ts";
export { hasPermissions, normalizePermissions } from "./permissions.ts";
export { toApiKeyView } from "./view.ts";
export type {
  ApiKeyView,
  ApiKeyVerifyResult,
  ApiKeyVerifyError,
  ApiKeyVerifyErrorCode,
  CallerApiKeyVerifyResult,
} from "./view.ts";
export type {
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
} from "./types.ts";
export type { ApiKeyUsageDay } from "./usage.ts";
export { API_KEY_LIMITS } from "./limits.ts";
