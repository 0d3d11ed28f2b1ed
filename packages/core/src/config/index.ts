export { parseDuration } from "./duration.ts";
export type { Duration } from "./duration.ts";
export { resolveConfig, DEFAULT_RATE_LIMIT_RULES } from "./options.ts";
export type { AuthOptions, ResolvedConfig, RateLimitRule, ResolvedRule } from "./options.ts";
