import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
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
}

function factory(name: string): PluginFactory | null {
  const value = (core as Record<string, unknown>)[name];
  return typeof value === "function" ? (value as PluginFactory) : null;
}

export function latchkeyPlugins(): LatchkeyPlugins {
  return { jwt: factory("jwt"), apiKeys: factory("apiKeys"), emailOtp: factory("emailOtp") };
}

/** What the bench needs from `@latchkey/drizzle-store` (typed here: the package may not be in this checkout yet). */
interface DrizzleStoreModule {
  drizzleStore(options: { dialect: "sqlite"; client: unknown } | { dialect: "sqlite"; url: string }): Store;
  migrateDatabase(target: { dialect: "sqlite"; client: unknown }): Promise<string[]>;
}

const drizzleStoreEntry = fileURLToPath(new URL("../../../packages/drizzle-store/src/index.ts", import.meta.url));

/** Whether the workspace has Latchkey's libSQL store (the libSQL scenarios run only then). */
export function hasDrizzleStore(): boolean {
  return existsSync(drizzleStoreEntry);
}

/** Loads `@latchkey/drizzle-store` from the workspace; null when the package is not there. */
export async function loadDrizzleStore(): Promise<DrizzleStoreModule | null> {
  if (!hasDrizzleStore()) return null;
  return (await import(pathToFileURL(drizzleStoreEntry).href)) as DrizzleStoreModule;
}
