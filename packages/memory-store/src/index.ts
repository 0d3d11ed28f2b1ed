export { memoryStore } from "./memory-store.ts";
