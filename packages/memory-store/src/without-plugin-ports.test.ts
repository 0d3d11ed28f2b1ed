// A store without the API-key and audit ports (as a third-party store that supports neither feature would be)
// passes the suite: the cases of those ports report as skipped, the JWKS cases still run.
import type { Store } from "@latchkey/core";
import { runStoreConformance } from "@latchkey/store-conformance";
import { memoryStore } from "./store.ts";

function withoutKeysAndAudit(): Store {
  const { apiKeys: _keys, audit: _audit, ...rest } = memoryStore();
  return rest;
}

runStoreConformance({
  name: "memory without apiKeys and audit",
  createStore: withoutKeysAndAudit,
});
