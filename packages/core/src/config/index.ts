export { parseDuration } from "./duration.ts";
export type { Duration } from "./duration.ts";
export { resolveConfig, AUTH_OPTION_SHAPE, EMAIL_TEMPLATE_NAMES } from "./options.ts";
export { rejectUnknownOptions, nearestName, EACH } from "./closed-options.ts";
export type { OptionShape } from "./closed-options.ts";
export type { AuthOptions, ResolvedConfig, RateLimitRule, ResolvedRule } from "./options.ts";
export { originOf } from "./origin.ts";
