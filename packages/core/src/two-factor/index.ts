export { hotp, totp, totpStep, matchTotp, totpURI, base32Encode, base32Decode } from "./totp.ts";
export type { TotpAlgorithm, TotpParams } from "./totp.ts";
export { TotpSecretBox } from "./totp-secret.ts";
export { twoFactor, TWO_FACTOR_PLUGIN_ID } from "./plugin.ts";
export type { TwoFactorApi, TwoFactorInstalled, TwoFactorPlugin } from "./plugin.ts";
export { TWO_FACTOR_SCHEMA, TWO_FACTOR_OPTION_SHAPE } from "./options.ts";
export type { TwoFactorOptions, ResolvedTwoFactorOptions } from "./options.ts";
export { TwoFactorService } from "./two-factor.ts";
export type { TwoFactorSetup } from "./two-factor.ts";
