import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { UserRecord } from "../ports/records.ts";
import { resolveTwoFactorOptions, type ResolvedTwoFactorOptions, type TwoFactorOptions } from "./options.ts";
import { TwoFactorService, type TwoFactorSetup } from "./two-factor.ts";
import type { FinishSignInInput, TwoFactorSignInResult } from "./sign-in-step.ts";

/**
 * `auth.api` operations of the two-factor feature (trusted server calls: no password or fresh-session check, no
 * rate limit; codes are still checked and counted).
 *
 * @example
 * const { totpURI, recoveryCodes } = await auth.api.enableTwoFactor({ user });
 */
export interface TwoFactorApi {
  enableTwoFactor(input: { user: UserRecord }, meta?: RequestMeta): Promise<TwoFactorSetup>;
  verifyTwoFactorSetup(input: { user: UserRecord; code: string }, meta?: RequestMeta): Promise<{ success: true }>;
  disableTwoFactor(input: { user: UserRecord; code: string }, meta?: RequestMeta): Promise<{ success: true }>;
  regenerateRecoveryCodes(input: { user: UserRecord }, meta?: RequestMeta): Promise<{ recoveryCodes: string[] }>;
  /** Finishes a pending sign-in with an authenticator code (`trustDevice`: this device skips the step from now). */
  verifyTwoFactor(input: FinishSignInInput, meta?: RequestMeta): Promise<TwoFactorSignInResult>;
  /** Finishes a pending sign-in with a single-use recovery code. */
  verifyTwoFactorRecoveryCode(
    input: Omit<FinishSignInInput, "trustDevice">,
    meta?: RequestMeta,
  ): Promise<TwoFactorSignInResult>;
}

/** What `twoFactor()` installs: `core.plugins.get(TWO_FACTOR_PLUGIN_ID)`. */
export type TwoFactorInstalled = InstalledPlugin<TwoFactorService, TwoFactorApi, ResolvedTwoFactorOptions>;

/**
 * The id `twoFactor()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(TWO_FACTOR_PLUGIN_ID);
 */
export const TWO_FACTOR_PLUGIN_ID = "two-factor" as PluginId<"two-factor", TwoFactorInstalled>;

/**
 * `twoFactor()` needs a store with the `twoFactor` port.
 *
 * @example
 * const plugin: TwoFactorPlugin = twoFactor();
 */
export type TwoFactorPlugin = AuthPlugin<"two-factor", TwoFactorInstalled, "twoFactor">;

/**
 * Authenticator-app (TOTP) second factor: `POST /two-factor/enable`, `/two-factor/verify-setup`,
 * `/two-factor/disable` and `/two-factor/recovery-codes`; every sign-in of a user with it on (password, emailed
 * code, magic link, verification link) answers `{ twoFactorRequired: true }` and a pending sign-in, finished by
 * `POST /two-factor/verify` or `/two-factor/verify-recovery-code`. Options are validated here (AuthConfigError
 * `twoFactor.<field>`).
 *
 * @example
 * import { twoFactor } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [twoFactor({ issuer: "Acme", trustDeviceFor: "30d" })] });
 */
export function twoFactor(options: TwoFactorOptions = {}): TwoFactorPlugin {
  const resolved = resolveTwoFactorOptions(options);
  return {
    id: TWO_FACTOR_PLUGIN_ID,
    requires: ["twoFactor"],
    init(ctx, ports) {
      const service = new TwoFactorService(ctx, resolved, ports.twoFactor);
      const api: TwoFactorApi = {
        enableTwoFactor: (input, meta) => service.enable(input.user, orServerCall(meta)),
        verifyTwoFactorSetup: (input, meta) => service.verifySetup(input.user, input.code, orServerCall(meta)),
        disableTwoFactor: (input, meta) => service.disable(input.user, input.code, orServerCall(meta)),
        regenerateRecoveryCodes: (input, meta) => service.regenerateRecoveryCodes(input.user, orServerCall(meta)),
        verifyTwoFactor: (input, meta) => service.signIn.finish(input, "totp", orServerCall(meta)),
        verifyTwoFactorRecoveryCode: (input, meta) =>
          service.signIn.finish({ token: input.token, code: input.code }, "recovery-code", orServerCall(meta)),
      };
      // Every sign-in of a user with two-factor on stops at the gate for its second step.
      return { service, api, options: resolved, signInGate: service.signIn };
    },
  };
}
