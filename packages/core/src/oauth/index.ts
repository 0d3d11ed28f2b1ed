export { oauth, OAUTH_PLUGIN_ID } from "./plugin.ts";
export type { OAuthApi, OAuthInstalled, OAuthPlugin } from "./plugin.ts";
export { OAUTH_SCHEMA, OAUTH_OPTION_SHAPE } from "./options.ts";
export type { OAuthOptions, ResolvedOAuthOptions } from "./options.ts";
export { OAuthService } from "./oauth.ts";
export { OAUTH_STATE_TTL_MS } from "./flow-state.ts";
export { OAuthCallbackError } from "./social-shapes.ts";
export type {
  IdTokenSignInInput,
  LinkedAccountView,
  ProviderAccessToken,
  SocialCallback,
  SocialStart,
  StartSocialInput,
} from "./social-shapes.ts";
export { oidc, oauth2 } from "./providers.ts";
export type {
  ClientCredentials,
  OAuth2Provider,
  OAuthProfile,
  OAuthProvider,
  OidcProvider,
  ProfileContext,
} from "./providers.ts";
export { apple, discord, github, gitlab, google, microsoft } from "./presets.ts";
export type { OAuth2Endpoints } from "./presets.ts";
export { ID_TOKEN_ALGORITHMS } from "./id-token.ts";
