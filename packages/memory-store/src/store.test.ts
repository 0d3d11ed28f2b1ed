import type { Store } from "@latchkey/core";
import { runStoreConformance } from "@latchkey/store-conformance";
import { memoryStore } from "./store.ts";

runStoreConformance({ name: "memory", createStore: () => memoryStore() });

// A store that serves none of the plugins: the API-key, JWKS, audit and social-account cases report as skipped
// ("store has no apiKeys port"), and every other case still passes without those ports.
runStoreConformance({
  name: "memory without plugin ports",
  createStore: () => {
    const { apiKeys: _apiKeys, jwks: _jwks, audit: _audit, socialAccounts: _social, ...rest } = memoryStore();
    return rest as Store;
  },
});
