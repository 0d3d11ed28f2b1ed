export { passkeys, PASSKEYS_PLUGIN_ID } from "./plugin.ts";
export type { PasskeyApi, PasskeysInstalled, PasskeysPlugin } from "./plugin.ts";
export { PASSKEYS_SCHEMA, PASSKEYS_OPTION_SHAPE } from "./options.ts";
export type { PasskeyOptions, PasskeyUserVerification, ResolvedPasskeyOptions } from "./options.ts";
export { PasskeyService } from "./passkey.ts";
export type {
  PasskeyCeremony,
  PasskeySignInInput,
  PasskeySignUpInput,
  PasskeySignUpOptionsInput,
  PasskeyView,
  RegisterPasskeyInput,
} from "./passkey.ts";
export type {
  AuthenticatorTransport,
  CredentialDescriptorJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "./webauthn/options.ts";
