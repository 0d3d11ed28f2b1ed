import { ORGANIZATIONS_PLUGIN_ID } from "@latchkey/core";
import type { AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { registerInvitationReads, registerInvitationWrites } from "./invitation-routes.ts";
import { registerMemberRoutes, registerPermissionRoutes } from "./member-routes.ts";
import { registerOrganizationCrud, registerOrganizationReads } from "./organization-routes.ts";

/**
 * Registers the `/organization/*` endpoints when `organizations()` is installed (else they answer 404).
 *
 * @example
 * registerOrganizationsRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerOrganizationsRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(ORGANIZATIONS_PLUGIN_ID);
  if (!feature) return;
  for (const register of [
    registerOrganizationCrud,
    registerOrganizationReads,
    registerInvitationWrites,
    registerInvitationReads,
    registerMemberRoutes,
    registerPermissionRoutes,
  ])
    register(app, tools, feature.service);
}
