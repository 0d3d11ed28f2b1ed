import { runStoreConformance } from "@latchkey/store-conformance";
import { memoryStore } from "./memory-store.ts";

runStoreConformance({ name: "memory", createStore: () => memoryStore() });
