export { AccountService } from "./account.ts";
export type { UpdateUserInput } from "./account.ts";
export { AccountDeletionService, deleteAccountIdentifier } from "./delete-account.ts";
export { DELETE_ACCOUNT_SCHEMA, resolveDeleteAccount } from "./options.ts";
export { endImpersonationsBy } from "./impersonation.ts";
