export { admin, ADMIN_PLUGIN_ID } from "./plugin.ts";
export type { AdminApi, AdminInstalled, AdminPlugin } from "./plugin.ts";
export { ADMIN_SCHEMA, ADMIN_OPTION_SHAPE } from "./options.ts";
export type { AdminOptions, ResolvedAdminOptions } from "./options.ts";
export { AdminService } from "./admin.ts";
export { applyBan } from "./ban.ts";
export { rolesOf, toAdminUserView } from "./view.ts";
export type {
  AdminAccountOps,
  AdminUserDetail,
  AdminUserView,
  BanUserInput,
  ListUsersInput,
  ListUsersResult,
} from "./view.ts";
