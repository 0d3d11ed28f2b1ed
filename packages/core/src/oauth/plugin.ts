import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthContext } from "../context/context.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { PluginPorts } from "../ports/store.ts";
import { resolveOAuthOptions, type OAuthOptions, type ResolvedOAuthOptions } from "./options.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";
import { OAuthService } from "./oauth.ts";
import type {
  IdTokenSignInInput,
  LinkedAccountView,
  ProviderAccessToken,
  SocialStart,
  StartSocialInput,
} from "./social-shapes.ts";

/**
 * `auth.api` operations of social sign-in (trusted server calls, no HTTP, no rate limit).
 *
 * @example
 * const { url } = await auth.api.signInSocial({ provider: "github", callbackURL: "/dashboard" });
 * const { accessToken } = await auth.api.getAccessToken({ userId, providerId: "github" });
 */
export interface OAuthApi {
  /** Starts a sign-in; the answer's `state` must reach the callback in the browser's state cookie. */
  signInSocial(input: StartSocialInput, meta?: RequestMeta): Promise<SocialStart>;
  /** Signs in with a native app's ID token: a session, or the second step a two-factor user needs first. */
  signInWithIdToken(input: IdTokenSignInInput, meta?: RequestMeta): Promise<SignInOutcome>;
  listAccounts(input: { userId: string }): Promise<LinkedAccountView[]>;
  unlinkAccount(
    input: { userId: string; providerId: string; accountId?: string | null },
    meta?: RequestMeta,
  ): Promise<{ success: true }>;
  getAccessToken(input: {
    userId: string;
    providerId: string;
    accountId?: string | null;
  }): Promise<ProviderAccessToken>;
}

/**
 * What `oauth()` installs: `core.plugins.get(OAUTH_PLUGIN_ID)`.
 *
 * @example
 * const { service } = auth.core.plugins.get(OAUTH_PLUGIN_ID)!;
 */
export type OAuthInstalled = InstalledPlugin<OAuthService, OAuthApi, ResolvedOAuthOptions>;

/**
 * The id `oauth()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(OAUTH_PLUGIN_ID);
 */
export const OAUTH_PLUGIN_ID = "oauth" as PluginId<"oauth", OAuthInstalled>;

/**
 * `oauth()` needs the `socialAccounts` store port.
 *
 * @example
 * const plugin: OAuthPlugin = oauth({ providers: [github({ clientId, clientSecret })] });
 */
export type OAuthPlugin = AuthPlugin<"oauth", OAuthInstalled, "socialAccounts">;

/**
 * Social sign-in: "Sign in with Google, GitHub, ..." and any OpenID Connect or OAuth 2.0 provider
 * (`POST /sign-in/social`, `GET`/`POST /callback/:provider`, `POST /link-social`, `GET /list-accounts`,
 * `POST /unlink-account`, `POST /get-access-token`). Options are validated here: a bad one throws
 * `AuthConfigError` naming it.
 *
 * @example
 * import { github, google, oauth } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [oauth({
 *   providers: [google({ clientId, clientSecret }), github({ clientId: ghId, clientSecret: ghSecret })],
 *   accountLinking: { trustedProviders: ["google"] },
 * })] });
 */
export function oauth(options: OAuthOptions): OAuthPlugin {
  const resolved = resolveOAuthOptions(options);
  return {
    id: OAUTH_PLUGIN_ID,
    requires: ["socialAccounts"],
    init(ctx: AuthContext, ports: Pick<PluginPorts, "socialAccounts">): OAuthInstalled {
      const service = new OAuthService(ctx, resolved, ports.socialAccounts);
      const api: OAuthApi = {
        signInSocial: (input, meta) => service.start(input, orServerCall(meta), null),
        signInWithIdToken: async (input, meta) => (await service.signInWithIdToken(input, orServerCall(meta))).signIn,
        listAccounts: ({ userId }) => service.listAccounts(userId),
        unlinkAccount: ({ userId, ...input }, meta) => service.unlink(userId, input, orServerCall(meta)),
        getAccessToken: ({ userId, ...input }) => service.accessToken(userId, input),
      };
      return { service, api, options: resolved };
    },
  };
}
