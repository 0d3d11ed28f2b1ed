import type { MiddlewareHandler } from "hono";
import {
  AuthConfigError,
  AuthError,
  ORGANIZATIONS_PLUGIN_ID,
  type Permissions,
  type SessionView,
  type UserView,
} from "@latchkey/core";
import { errorResponse } from "../../http/errors.ts";
import { keepRefreshedCookie } from "../../http/host-response.ts";
import type { RequestTools } from "../../middleware/session.ts";

/**
 * Context variables set by `auth.requireOrganization()`.
 *
 * @example
 * app.get("/projects", auth.requireOrganization(), (c) => c.json({ org: c.var.organization.id }));
 */
export interface OrganizationVariables {
  user: UserView;
  session: SessionView;
  /** The organization the request acts for and the caller's role in it. */
  organization: { id: string; role: string };
}

/**
 * Options of `auth.requireOrganization(options)`.
 *
 * @example
 * auth.requireOrganization({ permissions: { project: ["create"] } });
 */
export interface RequireOrganizationOptions {
  /** Statements the caller's role must grant (all-of), e.g. `{ project: ["create"] }`. */
  permissions?: Permissions;
}

/**
 * Builds `auth.requireOrganization(options)`: a host-route middleware for the session's active organization. It
 * answers failures itself as JSON: 401 `INVALID_CREDENTIALS` without a session, 404 `ORGANIZATION_NOT_FOUND` without
 * an active organization the caller is still a member of, 403 `INSUFFICIENT_PERMISSIONS` when the role does not
 * grant `permissions`. The membership and role are read from the store on every request.
 *
 * @example
 * app.post("/projects", auth.requireOrganization({ permissions: { project: ["create"] } }), (c) => c.json(c.var.organization));
 */
export function createRequireOrganization(tools: RequestTools) {
  return (options: RequireOrganizationOptions = {}): MiddlewareHandler<{ Variables: OrganizationVariables }> => {
    const feature = tools.core.plugins.get(ORGANIZATIONS_PLUGIN_ID);
    if (!feature)
      throw new AuthConfigError("requireOrganization", "needs the organizations() plugin in createAuth({ plugins })");
    const { service } = feature;
    const permissions = options.permissions ?? {};
    try {
      if (Object.keys(permissions).length > 0 && !service.validStatements(permissions)) throw new Error();
    } catch {
      throw new AuthConfigError("requireOrganization.permissions", "must be an object of resource -> [actions]");
    }
    return async (c, next) => {
      const s = await tools.session(c);
      if (!s) return errorResponse(new AuthError("INVALID_CREDENTIALS", "Sign in first"));
      const organizationId = s.sessionRecord.activeOrganizationId ?? null;
      const role = organizationId === null ? null : await service.roleOf(s.userRecord.id, organizationId);
      if (organizationId === null || role === null)
        return errorResponse(new AuthError("ORGANIZATION_NOT_FOUND", "Choose an organization you are a member of"));
      if (!service.roleGrants(role, permissions))
        return errorResponse(
          new AuthError("INSUFFICIENT_PERMISSIONS", "Your role in this organization does not allow this"),
        );
      c.set("user", s.user);
      c.set("session", s.session);
      c.set("organization", { id: organizationId, role });
      await next();
      keepRefreshedCookie(c);
    };
  };
}
