import type { AuthContext } from "./context.ts";
import type { PluginPortName, PluginPorts } from "../ports/store.ts";
import type { SignInGate } from "../session/sign-in-gate.ts";

declare const installedType: unique symbol;

/**
 * What every plugin's `init` returns, and what `core.plugins.get(id)` hands back: the feature's `service` (what
 * adapters call), the `api` methods it adds to `auth.api` (trusted server calls), and its resolved `options`.
 *
 * @example
 * const { service, options } = auth.core.plugins.get(API_KEY_PLUGIN_ID)!;
 */
export interface InstalledPlugin<Service = unknown, Api extends object = object, Options = unknown> {
  service: Service;
  api: Api;
  options: Options;
  /** A plugin that adds a second sign-in step (`twoFactor()`) hands its gate here; at most one plugin may. */
  signInGate?: SignInGate;
}

/**
 * A plugin id that carries the type of what the plugin installs, so `core.plugins.get(id)` is typed without a
 * type argument. At runtime it is the plain string (`"api-key"`).
 *
 * @example
 * export const MY_PLUGIN_ID = "my-plugin" as PluginId<"my-plugin", InstalledPlugin<MyService, MyApi, MyOptions>>;
 */
export type PluginId<Id extends string = string, Installed extends InstalledPlugin = InstalledPlugin> = Id & {
  readonly [installedType]?: Installed;
};

/**
 * A feature that can be switched on: `emailOtp()`, `apiKeys()`, `jwt()`, `auditLog()`. Each lives in its
 * feature's `plugin.ts` with its options type, its `api` interface and its id.
 *
 * - `id`: unique per installation; the typed key of `core.plugins.get(id)`.
 * - `requires`: the plugin-owned store ports it needs. `createAuth` refuses a store without one of them
 *   (`AuthConfigError` naming the plugin and the port), and `init` receives exactly those ports, non-optional.
 * - `init`: runs once in `createAuth`; always returns `{ service, api, options }` (`InstalledPlugin`). The
 *   `api` methods join `auth.api`, typed from the plugins passed.
 *
 * @example
 * const plugin: AuthPlugin<"my-plugin", InstalledPlugin<MyService, MyApi, MyOptions>, "audit"> = {
 *   id: MY_PLUGIN_ID,
 *   requires: ["audit"],
 *   init: (ctx, { audit }) => { const service = new MyService(ctx, audit); return { service, api: service.api, options }; },
 * };
 */
export interface AuthPlugin<
  Id extends string = string,
  Installed extends InstalledPlugin = InstalledPlugin,
  Requires extends PluginPortName = PluginPortName,
> {
  readonly id: PluginId<Id, Installed>;
  readonly requires: readonly Requires[];
  init(ctx: AuthContext, ports: Pick<PluginPorts, Requires>): Installed;
}

/** The `api` an `AuthPlugin` adds to `auth.api` (`never` for non-plugins). */
export type ApiOf<P> = P extends { init(...args: never[]): { api: infer Api } } ? Api : never;

/**
 * The installed plugins of one `createAuth`, looked up by their typed ids.
 *
 * @example
 * import { API_KEY_PLUGIN_ID } from "@latchkey/core";
 * const apiKeys = auth.core.plugins.get(API_KEY_PLUGIN_ID); // InstalledPlugin<ApiKeyService, ApiKeyApi, ...> | null
 * if (apiKeys) await apiKeys.service.verify({ key }, SERVER_CALL);
 */
export interface PluginRegistry {
  /** What the plugin with this id installed, or null when it is not installed. */
  get<Installed extends InstalledPlugin>(id: PluginId<string, Installed>): Installed | null;
  /** Whether a plugin with this id is installed. */
  has(id: string): boolean;
  /** The installed plugins' ids, in installation order. */
  readonly ids: readonly string[];
}
