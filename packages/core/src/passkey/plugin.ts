import { AuthConfigError } from "../errors/errors.ts";
import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import type { UserRecord } from "../ports/records.ts";
import type { SignInResult } from "../session/session.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";
import { resolvePasskeyOptions, type PasskeyOptions, type ResolvedPasskeyOptions } from "./options.ts";
import {
  PasskeyService,
  type PasskeySignInInput,
  type PasskeySignUpInput,
  type PasskeyView,
  type RegisterPasskeyInput,
} from "./passkey.ts";

/**
 * `auth.api` operations of passkeys (trusted server calls, no HTTP, no rate limit; responses are still verified).
 *
 * @example
 * const passkeys = await auth.api.listPasskeys({ userId });
 */
export interface PasskeyApi {
  /** Registers a passkey with the token of `PasskeyService.registrationOptions` and the browser's response. */
  registerPasskey(input: RegisterPasskeyInput & { user: UserRecord }, meta?: RequestMeta): Promise<PasskeyView>;
  /** Signs in with the token of `PasskeyService.authenticationOptions` and the browser's response. */
  signInPasskey(input: PasskeySignInInput, meta?: RequestMeta): Promise<SignInOutcome>;
  /** Signs up with the token of `PasskeyService.signUpOptions` and the browser's response (`allowPasskeyOnlyAccounts`). */
  signUpPasskey(input: PasskeySignUpInput, meta?: RequestMeta): Promise<SignInResult>;
  listPasskeys(input: { userId: string }): Promise<PasskeyView[]>;
  renamePasskey(input: { userId: string; id: string; name: string }): Promise<PasskeyView>;
  deletePasskey(input: { userId: string; id: string }, meta?: RequestMeta): Promise<{ success: true }>;
}

/**
 * What `passkeys()` installs: `core.plugins.get(PASSKEYS_PLUGIN_ID)`.
 *
 * @example
 * const { service } = auth.core.plugins.get(PASSKEYS_PLUGIN_ID)!;
 */
export type PasskeysInstalled = InstalledPlugin<PasskeyService, PasskeyApi, ResolvedPasskeyOptions>;

/**
 * The id `passkeys()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(PASSKEYS_PLUGIN_ID);
 */
export const PASSKEYS_PLUGIN_ID = "passkeys" as PluginId<"passkeys", PasskeysInstalled>;

/**
 * `passkeys()` needs the `passkeys` store port.
 *
 * @example
 * const plugin: PasskeysPlugin = passkeys({ rpId: "example.com", rpName: "Example" });
 */
export type PasskeysPlugin = AuthPlugin<"passkeys", PasskeysInstalled, "passkeys">;

/**
 * Passkeys (WebAuthn): `POST /passkey/register/options` and `/passkey/register/verify` (signed in, fresh session),
 * `POST /passkey/authenticate/options` and `/passkey/authenticate/verify` (a session like any sign-in),
 * `GET /passkey/list`, `PATCH /passkey/:id`, `DELETE /passkey/:id`; with `allowPasskeyOnlyAccounts`,
 * `POST /passkey/sign-up/options` and `/passkey/sign-up/verify`. Options are validated here (AuthConfigError
 * `passkeys.<field>`).
 *
 * @example
 * import { passkeys } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [passkeys({ rpId: "example.com", rpName: "Example" })] });
 */
export function passkeys(options: PasskeyOptions): PasskeysPlugin {
  const resolved = resolvePasskeyOptions(options);
  return {
    id: PASSKEYS_PLUGIN_ID,
    requires: ["passkeys"],
    init(ctx, ports) {
      // Without a session the proof of the mailbox could not reach the registrant's browser, and a proof from
      // anywhere else removes the passkey made before it
      // (docs/decisions/0071-passkey-only-accounts-and-passkeys-at-the-mailbox-proof.md).
      if (resolved.allowPasskeyOnlyAccounts && ctx.config.emailVerification.requireVerifiedForSignIn)
        throw new AuthConfigError(
          "passkeys.allowPasskeyOnlyAccounts",
          "cannot be combined with emailVerification.requireVerifiedForSignIn: a passkey sign-up signs in at once, and the first proof of the mailbox must come from that session to keep the passkey",
        );
      const service = new PasskeyService(ctx, resolved, ports.passkeys);
      const api: PasskeyApi = {
        registerPasskey: ({ user, ...input }, meta) => service.register(user, input, orServerCall(meta)),
        signInPasskey: (input, meta) => service.signIn(input, orServerCall(meta)),
        signUpPasskey: (input, meta) => service.signUp(input, orServerCall(meta)),
        listPasskeys: ({ userId }) => service.list(userId),
        renamePasskey: ({ userId, id, name }) => service.rename(userId, id, name),
        deletePasskey: ({ userId, id }, meta) => service.delete(userId, id, orServerCall(meta)),
      };
      return { service, api, options: resolved };
    },
  };
}
