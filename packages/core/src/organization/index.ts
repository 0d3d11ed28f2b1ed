export { organizations, ORGANIZATIONS_PLUGIN_ID } from "./plugin.ts";
export type { OrganizationApi, OrganizationsInstalled, OrganizationsPlugin } from "./plugin.ts";
export { ORGANIZATIONS_SCHEMA, ORGANIZATIONS_OPTION_SHAPE } from "./options.ts";
export type {
  AllowUserToCreate,
  BeforeMemberAdded,
  BeforeOrganizationCreated,
  MemberAddPath,
  MemberDraft,
  OrganizationDraft,
  OrganizationHooks,
  OrganizationsOptions,
  ResolvedOrganizationsOptions,
} from "./options.ts";
export { OrganizationService } from "./organization.ts";
export type { CreateOrganizationInput, InviteMemberInput, OrganizationRef, UpdateOrganizationInput } from "./input.ts";
export type {
  FullOrganizationView,
  InvitationView,
  MembershipView,
  MemberView,
  OrganizationView,
} from "./view.ts";
export { DEFAULT_ROLES, OWNER_ROLE } from "./roles.ts";
