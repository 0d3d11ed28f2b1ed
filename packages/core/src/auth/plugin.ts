import type { AuthContext } from "./context.ts";

/**
 * A feature that can be switched on: `emailOtp()`, `apiKeys()`, `jwt()`, `auditLog()`.
 * `init` builds the feature's service over the shared context when `createAuth` runs.
 */
export interface AuthPlugin<Id extends string = string, Service = unknown> {
  readonly id: Id;
  init(ctx: AuthContext): Service;
}
