import { AuthConfigError } from "../errors/errors.ts";
import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthContext } from "../context/context.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import {
  magicLinkTemplateSources,
  resolveMagicLinkOptions,
  type MagicLinkOptions,
  type ResolvedMagicLinkOptions,
} from "./options.ts";
import {
  MagicLinkService,
  type MagicLinkSignIn,
  type SendMagicLinkInput,
  type VerifyMagicLinkInput,
} from "./magic-link.ts";

/**
 * `auth.api` operations of the magic-link feature (trusted server calls, no HTTP, no rate limit).
 *
 * @example
 * await auth.api.signInMagicLink({ email: "ada@example.com", callbackURL: "/dashboard" });
 * const { user, session, callbackURL } = await auth.api.verifyMagicLink({ token });
 */
export interface MagicLinkApi {
  signInMagicLink(input: SendMagicLinkInput, meta?: RequestMeta): Promise<{ success: true }>;
  verifyMagicLink(input: VerifyMagicLinkInput, meta?: RequestMeta): Promise<MagicLinkSignIn>;
}

/**
 * What `magicLink()` installs: `core.plugins.get(MAGIC_LINK_PLUGIN_ID)`.
 *
 * @example
 * const { options, service } = auth.core.plugins.get(MAGIC_LINK_PLUGIN_ID)!;
 */
export type MagicLinkInstalled = InstalledPlugin<MagicLinkService, MagicLinkApi, ResolvedMagicLinkOptions>;

/**
 * The id `magicLink()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(MAGIC_LINK_PLUGIN_ID);
 */
export const MAGIC_LINK_PLUGIN_ID = "magic-link" as PluginId<"magic-link", MagicLinkInstalled>;

/**
 * `magicLink()` needs no plugin-owned store port.
 *
 * @example
 * const plugin: MagicLinkPlugin = magicLink();
 */
export type MagicLinkPlugin = AuthPlugin<"magic-link", MagicLinkInstalled, never>;

/**
 * Sign-in by emailed link (`POST /sign-in/magic-link`, `GET`/`POST /magic-link/verify`). Options are validated
 * here: a bad one throws `AuthConfigError` naming it (`magicLink.expiresIn must be between 1 minute and 1 hour`).
 *
 * @example
 * import { magicLink } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [magicLink({ expiresIn: "5m" })] });
 */
export function magicLink(options: MagicLinkOptions = {}): MagicLinkPlugin {
  const resolved = resolveMagicLinkOptions(options);
  return {
    id: MAGIC_LINK_PLUGIN_ID,
    requires: [],
    init(ctx: AuthContext): MagicLinkInstalled {
      const service = new MagicLinkService(
        ctx,
        resolved,
        magicLinkTemplateSources(resolved.templates, ctx.config.email.templates),
      );
      // A confirm page off the trusted origins fails here, at createAuth, not at the first send.
      try {
        service.confirmPage();
      } catch {
        throw new AuthConfigError("magicLink.confirmURL", "must be a path on baseUrl or a URL on a trusted origin");
      }
      const api: MagicLinkApi = {
        signInMagicLink: (input, meta) => service.send(input, orServerCall(meta)),
        verifyMagicLink: (input, meta) => service.verify(input, orServerCall(meta)),
      };
      return { service, api, options: resolved };
    },
  };
}
