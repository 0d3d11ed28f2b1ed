export type * from "./records.ts";
export type * from "./store.ts";
export type { Clock, Random } from "./clock.ts";
export { systemClock, webCryptoRandom, createTestClock } from "./clock.ts";
