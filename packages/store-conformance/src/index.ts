export { runStoreConformance, runCounterConformance } from "./conformance.ts";
export type { ConformanceOptions } from "./conformance.ts";
export * as fixtures from "./fixtures.ts";
