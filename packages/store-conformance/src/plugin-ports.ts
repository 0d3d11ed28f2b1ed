import type { Store, StorePorts } from "@latchkey/core";

/**
 * The ports a plugin brings: API keys, JWT signing keys, the audit log, two-factor records, linked social accounts, passkeys, organizations. A store
 * may leave out the ones it does not serve; the cases for them then report as skipped instead of failing.
 */
type PluginPort = "apiKeys" | "jwks" | "audit" | "twoFactor" | "socialAccounts" | "passkeys" | "organizations";

/** Why a case that needs `port` skipped. */
const noPort = (port: PluginPort) => `store has no ${port} port`;

/** The part of a running case's context the suite uses: Vitest's `skip`, which throws to end the case. */
export interface CaseContext {
  skip(note?: string): never;
}

/**
 * The store's `port` for the running case, or the case skips with "store has no <port> port". Decided when the
 * case runs rather than when it is registered, because the suite creates its store in `beforeAll`.
 */
export function portOf<K extends PluginPort>(store: Store, port: K, context: CaseContext): NonNullable<StorePorts[K]> {
  const found = store[port];
  if (!found) return context.skip(noPort(port));
  return found as NonNullable<StorePorts[K]>;
}
