export { hotp, totp, totpStep, matchTotp, totpURI, base32Encode, base32Decode } from "./totp.ts";
export type { TotpAlgorithm, TotpParams } from "./totp.ts";
export { TotpSecretBox } from "./totp-secret.ts";
