export { HookRunner } from "./hooks.ts";
export type { AuthHooks, HookContext, SignInPath, UserAmendment, UserCreationPath, UserDraft } from "./hooks.ts";
