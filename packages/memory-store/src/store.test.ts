import { runStoreConformance } from "@latchkey/store-conformance";
import { memoryStore } from "./store.ts";

runStoreConformance({ name: "memory", createStore: () => memoryStore() });
