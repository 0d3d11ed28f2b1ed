export { consoleLogger } from "./logger.ts";
export type { Logger, LogFields } from "./logger.ts";
