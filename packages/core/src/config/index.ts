export { parseDuration } from "./duration.ts";
export type { Duration } from "./duration.ts";
export { rejectUnknownOptions, nearestName, EACH } from "./closed-options.ts";
export type { OptionShape } from "./closed-options.ts";
export { originOf } from "./origin.ts";
export { applySchema, defaulted, flag, group, optional, required, shapeOf } from "./schema.ts";
export type {
  DefaultedOption,
  FilledOf,
  InputOf,
  OptionGroup,
  OptionKind,
  OptionSchema,
  OptionSettings,
  OptionSpec,
} from "./schema.ts";
