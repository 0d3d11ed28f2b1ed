export type * from "./records.ts";
export type * from "./store.ts";
export type { Clock, Random } from "./clock.ts";
export { systemClock, webCryptoRandom, createTestClock } from "./clock.ts";
export { compensatingTransaction } from "./compensation.ts";
export { banInForce } from "./ban.ts";
export type { CreationUndo } from "./compensation.ts";
export {
  databaseUnavailable,
  isDatabaseUnavailable,
  guardPorts,
  guardStore,
  DATABASE_RETRY_AFTER_SECONDS,
} from "./guard.ts";
