import { OAUTH_PLUGIN_ID } from "@latchkey/core";
import type { AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { registerAccounts, registerAccountTokens } from "./account-routes.ts";
import { registerCallback, registerSignIn } from "./sign-in-routes.ts";

/** The provider's `form_post` callback (`POST /callback/{provider}`): a cross-site POST, its state its defence. */
export const SOCIAL_CALLBACK_PATH = /\/callback\/[a-z0-9][a-z0-9-]{0,31}$/;
/** The paths that take an HTML form besides JSON: a plain form's `POST /sign-in/social`, and the callback. */
export const SOCIAL_FORM_PATHS = /\/(?:sign-in\/social|callback\/[a-z0-9][a-z0-9-]{0,31})$/;

/**
 * Registers the social sign-in endpoints when `oauth()` is installed (else they answer 404).
 *
 * @example
 * registerOAuthRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerOAuthRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(OAUTH_PLUGIN_ID);
  if (!feature) return;
  registerSignIn(app, tools, feature.service);
  registerCallback(app, tools, feature.service);
  registerAccounts(app, tools, feature.service);
  registerAccountTokens(app, tools, feature.service);
}
