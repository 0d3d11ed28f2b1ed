export { registerOrganizationsRoutes } from "./routes.ts";
export { createRequireOrganization } from "./require-organization.ts";
export type { OrganizationVariables, RequireOrganizationOptions } from "./require-organization.ts";
