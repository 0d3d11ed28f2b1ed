import type { Client } from "@libsql/client";
import * as core from "@latchkey/core";
import type { AuthPlugin, Store } from "@latchkey/core";

/** A plugin factory as the bench calls it; options are passed through unchanged. */
type PluginFactory = (options?: Record<string, unknown>) => AuthPlugin;

/**
 * The Latchkey features this checkout has. JWT, API keys and email OTP land on main from their own branches:
 * each scenario lights up once `@latchkey/core` exports its plugin, and is reported as skipped until then.
 */
export interface LatchkeyPlugins {
  jwt: PluginFactory | null;
  apiKeys: PluginFactory | null;
  emailOtp: PluginFactory | null;
  twoFactor: PluginFactory | null;
  magicLink: PluginFactory | null;
  oauth: PluginFactory | null;
  /** `oidc({...})`, the provider `oauth()` takes for any OpenID Connect issuer. */
  oidc: ((options: Record<string, unknown>) => unknown) | null;
}

function factory(name: string): PluginFactory | null {
  const value = (core as Record<string, unknown>)[name];
  return typeof value === "function" ? (value as PluginFactory) : null;
}

export function latchkeyPlugins(): LatchkeyPlugins {
  return {
    jwt: factory("jwt"),
    apiKeys: factory("apiKeys"),
    emailOtp: factory("emailOtp"),
    twoFactor: factory("twoFactor"),
    magicLink: factory("magicLink"),
    oauth: factory("oauth"),
    oidc: factory("oidc"),
  };
}

/** What the bench needs from `@latchkey/drizzle-store/sqlite`. */
interface DrizzleStoreModule {
  drizzleStore(options: { url: string }): Store;
  migrateDatabase(target: Client): Promise<string[]>;
}

/** Whether Latchkey's libSQL store is available (it is a workspace package; kept for the runner's skip path). */
export function hasDrizzleStore(): boolean {
  return true;
}

/** Loads `@latchkey/drizzle-store/sqlite` (the built package, as an application would). */
export async function loadDrizzleStore(): Promise<DrizzleStoreModule | null> {
  return (await import("@latchkey/drizzle-store/sqlite")) as DrizzleStoreModule;
}
