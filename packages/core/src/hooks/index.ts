export { HookRunner, isHookRefusal } from "./hooks.ts";
export { HOOKS_SCHEMA } from "./hooks.ts";
export type {
  AuthHooks,
  BeforeSignIn,
  BeforeUserCreated,
  HookContext,
  SignInPath,
  UserAmendment,
  UserCreationPath,
  UserDraft,
} from "./hooks.ts";
